# shellcheck shell=bash
# Sourced by stage-deps and stage-unpacked: the checks of their arguments and of the prefix, made before anything is
# read or written, and the one way they write a file. A refusal goes through the sourcing script's own refuse
# (exit 2).

# OPTION [VALUE]: an option given twice is refused; which of the two was meant is not guessed.
declare -A given=()
once() {
  [ -z "${given[$1]:-}" ] || refuse "$1 is given twice${2:+ ('${given[$1]}' and '$2')}; give it once"
  given[$1]=${2:-yes}
}

# OPTION VALUE: a value that begins with '-' is an option taken for a forgotten value (--prefix --replace), never a
# folder; a folder of such a name is given as ./-name.
refuse_an_option_for_a_value() {
  case $2 in
    -*) refuse "$1 '$2': the value begins with '-' (an option in place of a forgotten value?); give $1 a folder," \
               "as ./$2 if that is its name (nothing was staged)" ;;
  esac
}

# NAMED PREFIX: refuses a PREFIX that cannot be staged into; NAMED says which input it is (the option, or the
# default), so that the message names what the user gave.
refuse_unusable_prefix() {
  local named=$1 prefix=$2 real existing
  [ ! -e "$prefix" ] || [ -d "$prefix" ] || refuse "$named is not a folder"
  # A prefix among the system's own folders would put include/, lib/ and src/ beside the system's, and / holds
  # links (/lib to usr/lib) that a copy would follow into them: refused however it is spelled (a link, ..).
  # /usr/local is the local administrator's own, and may be staged into.
  real=$(realpath -m -- "$prefix")
  case ${real%/}/ in
    /usr/local/*) ;;
    / | /bin/* | /boot/* | /dev/* | /etc/* | /lib/* | /lib32/* | /lib64/* | /libx32/* | /proc/* | /sbin/* | /sys/* \
      | /usr/*)
      refuse "$named is among the system's own folders ($real): stage into a folder of your own (nothing was" \
             "staged)" ;;
  esac
  # The prefix is made when missing: the first entry on its way that is there must be a folder it can be made in.
  existing=$prefix
  while [ ! -e "$existing" ] && [ ! -L "$existing" ]; do existing=$(dirname -- "$existing"); done
  [ -d "$existing" ] || refuse "$named cannot be made: $existing, on its way, is not a folder (nothing was staged)"
  [ -w "$existing" ] || refuse "$named cannot be written: $existing is not writable (nothing was staged)"
}

# NAMED PREFIX ROOT (stage-deps): refuses a PREFIX that is the checkout at ROOT, holds it, or lies inside it.
refuse_a_prefix_among_the_sources() {
  local named=$1 prefix=$2 root=$3 real_root real_prefix
  real_root=$(realpath -- "$root")
  real_prefix=$(realpath -m -- "$prefix")
  # Staged into the checkout (or a folder above it, or one inside it), include/, lib/, share/ and src/ would lie
  # among its sources. .deps, and a folder under it, is no source: git ignores it, and the presets search .deps.
  case $real_root/ in
    "${real_prefix%/}"/*)
      refuse "$named is the checkout $root or holds it: stage into .deps (the default) or a folder outside it;" \
             "nothing was staged" ;;
  esac
  case ${real_prefix%/}/ in
    "$real_root"/.deps/*) ;;
    "$real_root"/*)
      refuse "$named is inside the checkout $root ($real_prefix), among its sources: stage into .deps (the" \
             "default), a folder under it, or a folder outside the checkout; nothing was staged" ;;
  esac
}

# PATH: a link or a file where a folder goes is refused: a link would lead the copy into someone's folder, and
# neither is ever followed or replaced.
refuse_unless_a_folder_may_go() {
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -d "$1" ]; }; then
    refuse "$1 is a link or a file where a folder goes; it is never followed or replaced: move it away" \
           "(nothing was staged)"
  fi
  [ ! -d "$1" ] || [ -w "$1" ] || refuse "$1 is not writable (nothing was staged)"
}

# Read from standard input: sha256sum marks a name with a backslash or a newline by a '\' before the sum.
sha256_of() { sha256sum <"$1" | cut -d' ' -f1; }

# The files are written through a temporary name of mktemp's beside their place, so that a file of the user's of
# any name there is never written over, and the place holds the whole file or what it held. `partial` names the
# temporary file while it is there, for the sourcing script's exit trap (remove_partial) to take away.
partial=""
partial_beside() {  # TARGET
  partial=$(mktemp -- "$(dirname -- "$1")/.$(basename -- "$1").XXXXXX")
}
copy_into_place() {  # SOURCE TARGET
  partial_beside "$2"
  cp -- "$1" "$partial"
  chmod --reference="$1" -- "$partial"
  mv -fT -- "$partial" "$2"
  partial=""
}
write_into_place() {  # TARGET, its text from standard input
  partial_beside "$1"
  cat >"$partial"
  chmod a+r -- "$partial"
  mv -fT -- "$partial" "$1"
  partial=""
}
remove_partial() {
  [ -z "$partial" ] || rm -f -- "$partial"
}

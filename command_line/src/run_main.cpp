#include "hazardlab/run_main.hpp"

#include <iostream>

#include "hazardlab/setting_source.hpp"

namespace hazardlab {

int refuse_input(std::string_view program, const std::string& what) {
  std::cerr << program << ": " << what << '\n';
  return kExitBadInput;
}

namespace {

// Why the options `app` parsed are not what a person meant ("" if they are). CLI11 takes the word after an option
// for its value whatever it is: `--json -- prog` would write a report named
// "--", and `--json --markdown m.md` would take "--markdown" for the file. A value of an option's own name form is
// never meant: refused, naming the option, in `app` and each subcommand it ran.
std::string options_problem(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (!option->nonpositional()) continue;
    // A valued option given twice is refused by CLI11 ("At Most 1 required"); a flag given twice is taken by it,
    // the last one winning: `--ptx-footprints=true --ptx-footprints=false` is a slip of one or the other.
    if (option->get_expected_max() == 0) {  // a flag: no value of its own word
      if (option->count() > 1)
        return option->get_name() + " is given " + std::to_string(option->count()) +
               " times; a flag is given once (alone, or as " + option->get_name() + "=true or =false)";
      continue;
    }
    for (const std::string& value : option->results())
      if (value.starts_with("--"))
        return option->get_name() + " '" + value + "': is not allowed; expected " + option->get_name() +
               "'s value, and a word that starts with '--' is an option (or the end of the options), so the value "
               "was left out; a value that does start with '--' is given as ./" + value + " for a path";
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (std::string problem = options_problem(*sub); !problem.empty()) return problem;
  return "";
}

}  // namespace

int run_main(std::string_view program, CLI::App& app, int argc, char** argv, const std::function<int()>& body,
             const MainOptions& options) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the help, or the refusal and where to look; --help is the one "error" that succeeds.
    // A valued option given twice: said as a flag given twice is, not as CLI11's count of "required" values.
    if (const auto* twice = dynamic_cast<const CLI::ArgumentMismatch*>(&e);
        twice != nullptr && std::string(e.what()).find("At Most 1 required but received") != std::string::npos) {
      const std::string what = e.what();
      return refuse_input(program, what.substr(0, what.find(':')) + " is given more than once; give it once (" +
                                       "the first value would be lost without a word)");
    }
    if (app.exit(e) == 0) return 0;
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && !options.extras_hint.empty())
      std::cerr << program << ": " << options.extras_hint << '\n';
    return kExitBadInput;
  }
  if (const std::string problem = options_problem(app); !problem.empty()) return refuse_input(program, problem);
  const auto ended = [&](int status) { return options.after_error ? options.after_error(status) : status; };
  try {
    return body();
  } catch (const SettingsError& e) {
    std::cerr << program << ": bad setting: " << e.what() << '\n';
    return ended(kExitBadInput);
  } catch (const std::invalid_argument& e) {  // UsageError too
    return ended(refuse_input(program, e.what()));
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << '\n';
    return ended(kExitFailed);
  }
}

}  // namespace hazardlab

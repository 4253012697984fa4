// The process log reader's view of one JSON object (process_log_reader.cpp): each key read against the schema,
// each error naming the key's path. Internal to checker/core.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/core/process_log.hpp"

namespace hazardlab::check::process_log_format {

// One JSON object of a line, read key by key against the schema: each read names the key's path when the value
// is missing or of another type, and a key the schema does not have is refused when the object is done.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail("expected an object");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ProcessLogError((where_.empty() ? std::string() : where_ + ": ") + what);
  }
  bool has(const char* k) const { return j_.contains(k); }
  const nlohmann::json& at(const char* k) {
    const auto it = j_.find(k);
    if (it == j_.end()) fail(std::string("no \"") + k + "\"");
    read_.insert(k);
    return *it;
  }
  Fields object(const char* k) { return Fields(at(k), path(k)); }
  std::string text(const char* k) {
    const nlohmann::json& v = at(k);
    if (!v.is_string()) Fields::fail_at(path(k), "expected a string");
    return v.get<std::string>();
  }
  std::uint64_t whole(const char* k) {
    const nlohmann::json& v = at(k);
    if (!v.is_number_unsigned()) Fields::fail_at(path(k), "expected a whole number >= 0");
    return v.get<std::uint64_t>();
  }
  std::int64_t integer(const char* k, std::int64_t min) {
    const nlohmann::json& v = at(k);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
        v.get<std::int64_t>() < min)
      Fields::fail_at(path(k), "expected a whole number >= " + std::to_string(min));
    return v.get<std::int64_t>();
  }
  bool flag(const char* k) {
    const nlohmann::json& v = at(k);
    if (!v.is_boolean()) Fields::fail_at(path(k), "expected true or false");
    return v.get<bool>();
  }
  // Each element of the array `k` (absent: none, where the schema lets it be left out), read by `each`.
  template <class Each>
  void array(const char* k, bool optional, Each&& each) {
    if (optional && !has(k)) return;
    const nlohmann::json& v = at(k);
    if (!v.is_array()) Fields::fail_at(path(k), "expected an array");
    for (std::size_t i = 0; i < v.size(); ++i) each(Fields(v[i], path(k) + "[" + std::to_string(i) + "]"));
  }
  template <class Enum, std::size_t N>
  Enum word(const char* k, const Enum (&all)[N]) {
    const std::string value = text(k);
    std::string allowed;
    for (Enum e : all) {
      if (to_string(e) == value) return e;
      allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(e));
    }
    Fields::fail_at(path(k), "'" + value + "' is not one of " + allowed);
  }
  // Every key was read: one the schema does not have is a slip or another file, never ignored.
  void done() const {
    for (const auto& [k, v] : j_.items())
      if (!read_.count(k)) fail("unknown key \"" + k + "\"");
  }

 private:
  std::string path(const char* k) const { return where_.empty() ? std::string(k) : where_ + "." + k; }
  [[noreturn]] static void fail_at(const std::string& where, const std::string& what) {
    throw ProcessLogError(where + ": " + what);
  }
  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> read_;
};

}  // namespace hazardlab::check::process_log_format

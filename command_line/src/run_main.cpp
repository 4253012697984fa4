#include "hazardlab/run_main.hpp"

#include <iostream>

#include "hazardlab/setting_source.hpp"

namespace hazardlab {

int refuse_input(std::string_view program, const std::string& what) {
  std::cerr << program << ": " << what << '\n';
  return kExitBadInput;
}

int run_main(std::string_view program, CLI::App& app, int argc, char** argv, const std::function<int()>& body,
             const MainOptions& options) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the help, or the refusal and where to look; --help is the one "error" that succeeds.
    if (app.exit(e) == 0) return 0;
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && !options.extras_hint.empty())
      std::cerr << program << ": " << options.extras_hint << '\n';
    return kExitBadInput;
  }
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

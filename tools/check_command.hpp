#pragma once
// `hazardlab check`: runs before anything else in `hazardlab`, since nothing of the suite (its settings, the
// GPU order it sets) may reach the checked program.
namespace hazardlab {
int check_main(int argc, char** argv);
// `hazardlab findings LOG...`: what checked processes have found so far, as JSON, each finding with its
// sentences; for tools that report findings while the program still runs (the pytest plugin).
int findings_main(int argc, char** argv);
}

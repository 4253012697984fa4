#pragma once
// `hazardlab check`: runs before anything else in `hazardlab`, since nothing of the suite (its settings, the
// GPU order it sets) may reach the checked program.
namespace hazardlab {
int check_main(int argc, char** argv);
}

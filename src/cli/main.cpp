// The gpuplan executable: everything but the entry point lives in app.cpp so that tests and
// the CLI fuzz target can drive the same code.
#include "cli/app.hpp"

int main(int argc, char** argv) { return gpuplan::cli::run(argc, argv); }

#pragma once
// Calibration profiles as YAML: what `gpuplan calibrate --out` writes and `--profile` reads.
// Numbers are written with 17 significant digits, so a profile reads back exactly.
#include <string>

#include "gpuplan/calibrate.hpp"

namespace gpuplan::io {

std::string profile_to_yaml(const Profile& p);
Profile parse_profile(const std::string& text, const std::string& path);
Profile read_profile(const std::string& path);

}  // namespace gpuplan::io

#pragma once
// What a model assumed from a bare parameter count (--params, or a safetensors file whose shapes
// say too little) took for granted, one line each, as estimate, compare, serve and models show
// list them under "assumed:".
#include <string>
#include <vector>

#include "gpuplan/model.hpp"

namespace gpuplan::io {

std::vector<std::string> assumed_model_lines(const AssumedModel& a);

}  // namespace gpuplan::io

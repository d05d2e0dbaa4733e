#pragma once
// What the training engines gpuplan plans for can actually run: a plan never prices a
// combination no engine runs (src/core/workload.cpp).
#include <string>

#include "gpuplan/workload.hpp"

namespace gpuplan {

// Why no training engine can run the workload's offload, or "" when one can. ZeRO-Offload and
// FSDP's CPU offload step the optimizer on the host, so bitsandbytes' 8-bit optimizers (GPU
// kernels) cannot be offloaded; parameters offload only with their shards (ZeRO-3, FSDP); on
// several GPUs only sharded states offload (DeepSpeed refuses offload at ZeRO stage 0).
std::string offload_problem(const Workload& w);

}  // namespace gpuplan

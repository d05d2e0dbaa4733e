#pragma once
// --node-shape and --network: the machines a job runs on, as a user states them for their own
// hardware (gpuplan::NodeShape). estimate, compare, plan and check's records take them with the
// run flags; every offer (and --owned's box) is then timed on that shape.
#include <CLI/CLI.hpp>

#include <string>

#include "gpuplan/catalog.hpp"
#include "gpuplan/node_shape.hpp"

namespace gpuplan::cli {

void add_node_options(CLI::App& cmd, std::string& node_shape, std::string& network);

// "8", "8xpcie4", "4xnvlink4" and "100Gbps", "10GbE", "3.2Tbps": exits 2 naming the flag on a bad value.
// A named link's GB/s is what `catalog`'s GPUs with that link state.
NodeShape build_node_shape(const Catalog& catalog, const std::string& node_shape, const std::string& network);

}  // namespace gpuplan::cli

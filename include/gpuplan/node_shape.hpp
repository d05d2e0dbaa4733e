#pragma once
// The machines a job runs on, as a user states them for their own hardware: GPUs per node, the
// link that joins them inside a node (PCIe, NVLink, Infinity Fabric) and the network between
// nodes. Sheets list consumer and PCIe cards as 1-GPU instances, so without a stated shape 8
// such GPUs are 8 machines on the network; an 8-card workstation is one node on PCIe.
// Pure: the link figures come from the catalog's GPUs (data/gpus.yaml, each entry sourced).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {

struct NodeShape {
  int gpus_per_node = 0;      // 0 = as the offer's instance holds
  std::string link;           // the intra-node link's kind as the catalog names it ("pcie4"); "" = the GPU's own
  double link_gbps = 0;       // GB/s per GPU, one direction, of `link`; 0 = the offer's or GPU's figure
  double network_gbps = 0;    // node-to-node, Gb/s (bits) per node; 0 = the offer's
  bool stated() const { return gpus_per_node > 0 || link_gbps > 0 || network_gbps > 0; }
};

// The GB/s per GPU (one direction) the catalog gives interconnect `kind`: `gpu`'s own figure when
// it has that kind, else the lowest figure a GPU of that kind lists (Infinity Fabric is 400 on
// MI250, 448 on MI300X). nullopt when no GPU lists the kind.
std::optional<double> link_kind_gbps(const std::vector<Gpu>& gpus, const std::string& kind, const Gpu* gpu = nullptr);

// The link kinds the catalog knows, sorted, for messages.
std::vector<std::string> link_kinds(const std::vector<Gpu>& gpus);

// `l` with what the shape states put in its place; a stated link of `gpu`'s own kind is `gpu`'s figure.
// The network is the exception: a sheet that publishes its network is what that offer rents, so
// --network fills in only where `l` has none (the user's own machines, --owned, silent sheets).
Links shaped_links(Links l, const NodeShape& s, const Gpu& gpu);

// Where a job's node-to-node figure comes from on an offer whose own links are `offer_links`.
enum class NetworkSource { sheet, stated, assumed };
const char* to_string(NetworkSource s);  // "sheet", "--network", "assumed"
NetworkSource network_source(const Links& offer_links, const NodeShape& s);

// Whether a job of `gpus` GPUs over `l` talks across nodes on the 10 GbE figure assumed when no
// network is known (kUnknownInterNodeGbps).
inline bool network_assumed(int gpus, const Links& l) { return gpus > std::max(1, l.gpus_per_node) && !(l.inter_node_gbps > 0); }

}  // namespace gpuplan

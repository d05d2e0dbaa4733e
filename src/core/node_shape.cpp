#include "gpuplan/node_shape.hpp"

#include <algorithm>

namespace gpuplan {

std::optional<double> link_kind_gbps(const std::vector<Gpu>& gpus, const std::string& kind, const Gpu* gpu) {
  if (gpu && gpu->interconnect_kind == kind && gpu->interconnect_gbps > 0) return gpu->interconnect_gbps;
  std::optional<double> lowest;
  for (const Gpu& g : gpus)
    if (g.interconnect_kind == kind && g.interconnect_gbps > 0) lowest = std::min(lowest.value_or(g.interconnect_gbps), g.interconnect_gbps);
  return lowest;
}

std::vector<std::string> link_kinds(const std::vector<Gpu>& gpus) {
  std::vector<std::string> out;
  for (const Gpu& g : gpus)
    if (!g.interconnect_kind.empty() && std::find(out.begin(), out.end(), g.interconnect_kind) == out.end())
      out.push_back(g.interconnect_kind);
  std::sort(out.begin(), out.end());
  return out;
}

Links shaped_links(Links l, const NodeShape& s, const Gpu& gpu) {
  if (s.gpus_per_node > 0) l.gpus_per_node = s.gpus_per_node;
  if (!s.link.empty() && s.link == gpu.interconnect_kind && gpu.interconnect_gbps > 0) l.intra_node_gbps = gpu.interconnect_gbps;
  else if (s.link_gbps > 0) l.intra_node_gbps = s.link_gbps;
  if (network_source(l, s) == NetworkSource::stated) l.inter_node_gbps = s.network_gbps / 8.0;  // Gb/s -> GB/s
  return l;
}

const char* to_string(NetworkSource s) {
  switch (s) {
    case NetworkSource::sheet: return "sheet";
    case NetworkSource::stated: return "--network";
    case NetworkSource::assumed: return "assumed";
  }
  return "?";
}

NetworkSource network_source(const Links& offer_links, const NodeShape& s) {
  if (offer_links.inter_node_gbps > 0) return NetworkSource::sheet;
  return s.network_gbps > 0 ? NetworkSource::stated : NetworkSource::assumed;
}

}  // namespace gpuplan

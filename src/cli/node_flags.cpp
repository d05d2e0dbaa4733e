#include "cli/node_flags.hpp"

#include <algorithm>
#include <cctype>

#include "cli/common.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// AMD's name for Infinity Fabric between GPUs.
std::string link_kind(const std::string& text) { return text == "xgmi" ? "infinity-fabric" : text; }

// "100gbps" -> 100 (Gb/s). Bits only: "GB/s" would be bytes, and is refused rather than guessed.
double network_gbits(const std::string& text) {
  const std::string t = lower(text);
  static const std::pair<const char*, double> units[] = {{"tbps", 1000}, {"gbps", 1}, {"gbe", 1}, {"gbit/s", 1}, {"gbit", 1}, {"mbps", 1e-3}};
  for (const auto& [unit, scale] : units) {
    const std::string u = unit;
    if (t.size() <= u.size() || t.compare(t.size() - u.size(), u.size(), u) != 0) continue;
    std::string number = t.substr(0, t.size() - u.size());
    while (!number.empty() && number.back() == ' ') number.pop_back();
    auto v = parse_count(number);
    if (!v || !(*v.value > 0)) bad_flag("--network", "expected a positive rate, e.g. 100Gbps or 10GbE");
    const double gbits = *v.value * scale;
    if (gbits > 1e5) bad_flag("--network", "above 100 Tb/s per node: give the node's network in bits per second, e.g. 400Gbps");
    return gbits;
  }
  bad_flag("--network", "expected a rate in bits per second with its unit, e.g. 100Gbps, 10GbE or 3.2Tbps, got \"" + text + "\"");
}

}  // namespace

void add_node_options(CLI::App& cmd, std::string& node_shape, std::string& network) {
  CLI::App& sec = option_section(cmd, "Nodes and links (your own hardware)");
  sec.add_option("--node-shape", node_shape,
                 "GPUs per machine and the link between them, GPUSxLINK, e.g. 8xpcie4 (one box of 8 PCIe 4 cards) or 8xnvlink4; "
                 "a bare 8 keeps the GPU's own link. Every offer is timed on it (sheets list PCIe cards as 1-GPU machines)");
  sec.add_option("--network", network, "Network between machines, per machine, e.g. 100Gbps or 10GbE (default: the sheet's; 10 GbE when it has none)");
}

NodeShape build_node_shape(const Catalog& catalog, const std::string& node_shape, const std::string& network) {
  NodeShape s;
  if (!node_shape.empty()) {
    const std::string t = lower(node_shape);
    const auto x = t.find('x');
    const std::string count = t.substr(0, x);
    auto n = parse_int(count, 1, 1024);
    if (!n) bad_flag("--node-shape", "GPUs per machine: " + n.error + "; expected GPUSxLINK, e.g. 8xpcie4");
    s.gpus_per_node = static_cast<int>(*n.value);
    if (x != std::string::npos) {
      s.link = link_kind(t.substr(x + 1));
      const auto gbps = link_kind_gbps(catalog.gpus, s.link);
      if (!gbps)
        bad_flag("--node-shape", "unknown link \"" + t.substr(x + 1) + "\"; the catalog's GPUs list " + joined(link_kinds(catalog.gpus)));
      s.link_gbps = *gbps;
    }
  }
  if (!network.empty()) s.network_gbps = network_gbits(network);
  return s;
}

}  // namespace gpuplan::cli

// libFuzzer target: the SkyPilot vms.csv reader must report, never crash, hang or throw. A
// small GPU catalog with a PCIe and an SXM form of one chip, and an ambiguous alias, keeps the
// name-mapping paths reachable.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/catalogs/skypilot_csv.hpp"

namespace {

gpuplan::Gpu gpu(const char* id, const char* kind, std::vector<std::string> aliases) {
  gpuplan::Gpu g;
  g.id = id;
  g.name = id;
  g.vendor = "nvidia";
  g.architecture = "hopper";
  g.memory_bytes = 80ull << 30;
  g.interconnect_kind = kind;
  g.aliases = std::move(aliases);
  return g;
}

const gpuplan::Catalog& known() {
  static const gpuplan::Catalog c = [] {
    gpuplan::Catalog k;
    k.gpus.push_back(gpu("h100-sxm", "nvlink4", {"H100", "Twin"}));
    k.gpus.push_back(gpu("h100-pcie", "pcie5", {"H100 PCIe", "Twin"}));
    gpuplan::Provider p;
    p.id = "fuzz";
    p.billing_increment_seconds = 60;
    k.providers.push_back(p);
    return k;
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)gpuplan::io::looks_like_skypilot_csv(text);
  (void)gpuplan::io::parse_skypilot_csv(text, "fuzz_vms.csv", known());
  // The provider id comes from a path; feed it the first line as one (no file is opened).
  const std::string first = text.substr(0, std::min<std::size_t>(text.find('\n'), 200));
  if (first.find('\0') == std::string::npos) (void)gpuplan::io::skypilot_provider_id(first);
  return 0;
}

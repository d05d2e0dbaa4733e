#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/catalogs/price_cache.hpp"
#include "io/catalogs/shipped_data.hpp"

namespace fs = std::filesystem;
using namespace gpuplan;

namespace {

const char* kSheet =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    "1x_RTX4090_SECURE,RTX4090,1,16,62,0.69,CA,,0.39\n";

struct Scratch {
  fs::path root;
  Scratch() {
    char t[] = "/tmp/gpuplan-price-cache-XXXXXX";
    root = ::mkdtemp(t);
  }
  ~Scratch() { fs::remove_all(root); }
  fs::path provider(const std::string& id, const std::string& sheet) {
    const fs::path dir = root / id;
    fs::create_directories(dir);
    std::ofstream(dir / "vms.csv") << sheet;
    ::chmod((dir / "vms.csv").c_str(), 0644);
    io::PriceSheetMeta m{id, "http://127.0.0.1/x/" + id + "/vms.csv", "2026-11-30T08:00:00Z", "2026-12-01T09:30:00Z", "\"e\"",
                         "", sheet.size()};
    io::write_price_meta(dir.string(), m);
    return dir;
  }
};

}  // namespace

TEST_CASE("a cache file is trusted only when regular, ours, not shared-writable and small", "[price_cache]") {
  Scratch s;
  const fs::path dir = s.provider("runpod", kSheet);
  const std::string sheet = (dir / "vms.csv").string();
  CHECK_FALSE(io::untrusted_cache_file(sheet, io::kMaxPriceSheetBytes));
  CHECK(*io::untrusted_cache_file(sheet, 10) == std::to_string(std::string(kSheet).size()) + " bytes, over the 10-byte limit");
  ::chmod(sheet.c_str(), 0664);
  CHECK(*io::untrusted_cache_file(sheet, io::kMaxPriceSheetBytes) == "writable by group or others");
  ::chmod(sheet.c_str(), 0644);
  fs::create_symlink(sheet, dir / "link.csv");
  CHECK(*io::untrusted_cache_file((dir / "link.csv").string(), io::kMaxPriceSheetBytes) == "a symbolic link");
  CHECK(*io::untrusted_cache_file((dir / "none.csv").string(), io::kMaxPriceSheetBytes) == "missing");
  CHECK(*io::untrusted_cache_file(dir.string(), io::kMaxPriceSheetBytes) == "not a regular file");
}

TEST_CASE("a cached sheet replaces the shipped provider, dated by its last check", "[price_cache]") {
  Scratch s;
  s.provider("runpod", kSheet);
  Catalog c = io::embedded_catalog();
  std::vector<std::string> notices;
  const auto used = io::merge_cached_prices(c, s.root.string(), &notices);
  REQUIRE(used.size() == 1);
  CHECK(notices.empty());
  const Provider* p = c.find_provider("runpod").found;
  REQUIRE(p != nullptr);
  CHECK(p->cached_at == "2026-12-01T09:30:00Z");
  CHECK(p->prices_as_of == "2026-12-01");
  CHECK(p->source == "http://127.0.0.1/x/runpod/vms.csv");
  REQUIRE(p->offers.size() == 1);
  CHECK(*p->offers[0].price(Pricing::on_demand) == Approx(0.69).epsilon(1e-12));
  CHECK(p->billing_increment_seconds == 1);  // terms kept from the shipped RunPod sheet
}

TEST_CASE("a cached sheet whose size disagrees with its meta is passed over", "[price_cache]") {
  Scratch s;
  const fs::path dir = s.provider("runpod", kSheet);
  std::ofstream(dir / "vms.csv", std::ios::app) << "1x_RTX4090_SECURE,RTX4090,1,16,62,0.70,US,,0.39\n";
  Catalog c = io::embedded_catalog();
  std::vector<std::string> notices;
  CHECK(io::merge_cached_prices(c, s.root.string(), &notices).empty());
  REQUIRE(notices.size() == 1);
  CHECK_THAT(notices[0], Catch::Contains("does not match meta.json"));
  CHECK(c.find_provider("runpod").found->cached_at.empty());
}

TEST_CASE("meta.json without its timestamps is refused", "[price_cache]") {
  Scratch s;
  const fs::path dir = s.provider("runpod", kSheet);
  std::ofstream(dir / "meta.json") << R"({"source": "x", "bytes": 5})";
  std::string why;
  CHECK_FALSE(io::read_price_meta(dir.string(), &why));
  CHECK(why == "meta.json lacks source, fetched_at or checked_at");
}

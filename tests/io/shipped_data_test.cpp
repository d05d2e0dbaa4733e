#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>

#include "gpuplan/name_match.hpp"
#include "io/catalogs/catalog_blob.hpp"
#include "io/catalogs/catalog_json.hpp"
#include "io/shipped_catalog.hpp"
#include "io/text/files.hpp"

using namespace gpuplan;

using testing::shipped;

TEST_CASE("the shipped data loads and the embedded copy matches it", "[data]") {
  // The build reads data/ from the source root, so the image's locations are "data/...":
  // read it the same way here.
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(GPUPLAN_TEST_SOURCE_DIR);
  const Catalog disk = io::load_data_dir("data");
  std::filesystem::current_path(cwd);
  const Catalog embedded = io::load_shipped_catalog();
  CHECK(embedded.gpus.front().where.path.rfind("data/", 0) == 0);  // no build machine's path
  CHECK(disk.gpus.size() >= 20);
  CHECK(disk.models.size() >= 25);
  CHECK(disk.providers.size() >= 5);
  CHECK(embedded.gpus.size() == disk.gpus.size());
  CHECK(embedded.models.size() == disk.models.size());
  CHECK(embedded.offer_count() == disk.offer_count());
  // Field for field, as `--format json` shows them: the compiled-in image is the YAML.
  CHECK(io::to_json(embedded) == io::to_json(disk));
}

TEST_CASE("the catalog image reads back to the catalog and refuses a damaged one", "[data]") {
  const std::string blob = io::catalog_to_blob(shipped());
  const Catalog back = io::catalog_from_blob(blob.data(), blob.size());
  CHECK(io::to_json(back) == io::to_json(shipped()));
  CHECK(back.gpus.front().where.path == shipped().gpus.front().where.path);
  CHECK_THROWS_AS(io::catalog_from_blob(blob.data(), blob.size() - 1), std::logic_error);
  CHECK_THROWS_AS(io::catalog_from_blob(blob.data(), 3), std::logic_error);
  std::string other = blob;
  other[4] = static_cast<char>(other[4] + 1);  // another image version
  CHECK_THROWS_AS(io::catalog_from_blob(other.data(), other.size()), std::logic_error);
}

TEST_CASE("every shipped model counts to its published parameter total", "[data][model]") {
  for (const auto& m : shipped().models) {
    INFO(m.id);
    const double computed = count_params(m).total();
    const double published = static_cast<double>(m.published_params);
    // A published figure that is not a round number is an exact count and must match exactly;
    // a rounded one (…000000) must match within 0.1%.
    if (m.published_params % 1000000 != 0) CHECK(computed == published);
    else CHECK(std::fabs(computed - published) / published <= 0.001);
  }
}

TEST_CASE("the GPUs and models the product promises are there", "[data]") {
  for (const char* id : {"rtx-3060-12gb", "rtx-3090", "rtx-4090", "rtx-5090", "rtx-4000-ada", "rtx-6000-ada", "l4", "l40s",
                         "a10g", "t4", "a100-40gb-sxm", "a100-80gb-sxm", "a100-80gb-pcie", "h100-pcie", "h100-sxm", "h200",
                         "b200", "mi250x", "mi300x", "mi325x"}) {
    INFO(id);
    CHECK(shipped().find_gpu(id).found != nullptr);
  }
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                         "llama-3.2-1b", "llama-3.2-3b", "mistral-7b", "mixtral-8x7b", "qwen2.5-0.5b", "qwen2.5-1.5b",
                         "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b", "phi-3-mini", "phi-4-mini",
                         "gemma-2-2b", "gemma-2-9b", "gemma-2-27b", "falcon-7b", "gpt2"}) {
    INFO(id);
    CHECK(shipped().find_model(id).found != nullptr);
  }
  CHECK(shipped().find_model("meta-llama/Llama-3.1-8B").found->id == "llama-3.1-8b");
  CHECK(shipped().find_gpu("H100").found->id == "h100-sxm");
  CHECK(shipped().find_gpu("RTX 4090").found->id == "rtx-4090");
}

TEST_CASE("the seeds' DigitalOcean prices are in the sheet", "[data]") {
  auto hit = shipped().find_provider("digitalocean");
  REQUIRE(hit.found);
  auto price = [&](const std::string& gpu, int gpus, Pricing p) -> double {
    for (const auto& o : hit.found->offers)
      if (o.gpu == gpu && o.gpus == gpus && o.price(p)) return *o.price(p);
    return -1;
  };
  CHECK(price("h100-sxm", 8, Pricing::reserved_1y) == Approx(1.99));
  CHECK(price("mi325x", 8, Pricing::reserved_1y) == Approx(1.69));
  CHECK(price("mi300x", 8, Pricing::reserved_1y) == Approx(1.49));
  CHECK(price("rtx-4000-ada", 1, Pricing::on_demand) == Approx(0.76));
  CHECK(price("rtx-6000-ada", 1, Pricing::on_demand) == Approx(1.57));
  CHECK(price("l40s", 1, Pricing::on_demand) == Approx(1.57));
  CHECK(price("mi300x", 1, Pricing::on_demand) == Approx(1.99));
  CHECK(price("h100-sxm", 1, Pricing::on_demand) == Approx(3.39));
}

TEST_CASE("aliases are unambiguous except where meant to be", "[data]") {
  std::map<std::string, std::set<std::string>> owners;
  for (const auto& g : shipped().gpus)
    for (const auto& a : g.aliases) owners[normalise_name(a)].insert(g.id);
  for (const auto& [alias, ids] : owners) {
    INFO(alias);
    if (alias == "v100") CHECK(ids.size() == 2);
    else CHECK(ids.size() == 1);
  }
}

namespace {

// A scratch copy of data/ and a cache folder, removed afterwards.
struct CacheScratch {
  std::filesystem::path root = std::filesystem::temp_directory_path() /
                               ("gpuplan-cache-test-" + std::to_string(::getpid()));
  std::string data = (root / "data").string();
  std::string cache = (root / "cache").string();
  CacheScratch() {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
    std::filesystem::copy(GPUPLAN_TEST_DATA_DIR, data, std::filesystem::copy_options::recursive);
  }
  ~CacheScratch() { std::filesystem::remove_all(root); }
  std::string cache_file() const {
    for (const auto& e : std::filesystem::directory_iterator(cache)) return e.path().string();
    return "";
  }
};

double h100_price(const Catalog& c, const std::string& provider) {
  for (const auto& p : c.providers)
    if (p.id == provider)
      for (const auto& o : p.offers)
        if (o.gpu == "h100-sxm" && o.price(Pricing::on_demand)) return *o.price(Pricing::on_demand);
  return -1;
}

}  // namespace

TEST_CASE("a data directory's catalog is cached until a file changes", "[data][cache]") {
  CacheScratch s;
  bool hit = true;
  const Catalog first = io::load_data_dir_cached(s.data, s.cache, &hit);
  CHECK_FALSE(hit);
  CHECK(io::to_json(first) == io::to_json(io::load_data_dir(s.data)));
  const Catalog second = io::load_data_dir_cached(s.data, s.cache, &hit);
  CHECK(hit);
  CHECK(io::to_json(second) == io::to_json(first));

  SECTION("an edited price sheet is read again") {
    const std::string sheet = s.data + "/providers/lambda.yaml";
    const double before = h100_price(second, "lambda");
    REQUIRE(before > 0);
    std::string text = io::read_file(sheet);
    const std::string was = [&] {
      std::ostringstream o;
      o << before;
      return o.str();
    }();
    const std::string field = "on_demand_per_gpu_hour: " + was;
    const auto at = text.find(field);
    REQUIRE(at != std::string::npos);
    text.replace(at, field.size(), "on_demand_per_gpu_hour: 123.5");
    io::write_file_atomic(sheet, text);
    const Catalog edited = io::load_data_dir_cached(s.data, s.cache, &hit);
    CHECK_FALSE(hit);
    CHECK(h100_price(edited, "lambda") == 123.5);
    CHECK(io::to_json(edited) == io::to_json(io::load_data_dir(s.data)));
  }
  SECTION("a corrupt cache file is rebuilt, not trusted") {
    const std::string file = s.cache_file();
    REQUIRE(!file.empty());
    std::string bytes = io::read_file(file);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    io::write_file_atomic(file, bytes);
    const Catalog again = io::load_data_dir_cached(s.data, s.cache, &hit);
    CHECK_FALSE(hit);
    CHECK(io::to_json(again) == io::to_json(first));
    io::write_file_atomic(file, "gpuplan-catalog-cache\nshort");
    CHECK(io::to_json(io::load_data_dir_cached(s.data, s.cache, &hit)) == io::to_json(first));
    CHECK_FALSE(hit);
    CHECK(io::load_data_dir_cached(s.data, s.cache, &hit).offer_count() == first.offer_count());
    CHECK(hit);
  }
  SECTION("a broken file is an error, and nothing is cached for it") {
    io::write_file_atomic(s.data + "/gpus.yaml", "gpus:\n  - id: [broken\n");
    CHECK_THROWS(io::load_data_dir_cached(s.data, s.cache, &hit));
  }
}

TEST_CASE("a cache file is trusted only when it is this user's own regular file", "[data][cache]") {
  // Issue 30.10: a FIFO blocked every run, a link to /dev/zero read until bad_alloc, and a cache
  // anyone could write changed prices. Each is ignored (and rebuilt), never read.
  CacheScratch s;
  bool hit = true;
  const Catalog first = io::load_data_dir_cached(s.data, s.cache, &hit);
  const std::string file = s.cache_file();
  REQUIRE(!file.empty());
  CHECK((std::filesystem::status(file).permissions() & std::filesystem::perms::others_all) == std::filesystem::perms::none);
  SECTION("group- or world-writable") {
    ::chmod(file.c_str(), 0666);
    CHECK(io::load_data_dir_cached(s.data, s.cache, &hit).offer_count() == first.offer_count());
    CHECK_FALSE(hit);
  }
  SECTION("a FIFO") {
    std::filesystem::remove(file);
    REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    CHECK(io::load_data_dir_cached(s.data, s.cache, &hit).offer_count() == first.offer_count());
    CHECK_FALSE(hit);
  }
  SECTION("a symlink to /dev/zero") {
    std::filesystem::remove(file);
    std::filesystem::create_symlink("/dev/zero", file);
    CHECK(io::load_data_dir_cached(s.data, s.cache, &hit).offer_count() == first.offer_count());
    CHECK_FALSE(hit);
  }
  SECTION("owned by another user") {
    if (::geteuid() == 0) {
      REQUIRE(::chown(file.c_str(), 65534, 65534) == 0);
      CHECK(io::load_data_dir_cached(s.data, s.cache, &hit).offer_count() == first.offer_count());
      CHECK_FALSE(hit);
    }
  }
  SECTION("keyed by content: a same-size edit with the times put back is still seen") {
    const std::string sheet = s.data + "/providers/lambda.yaml";
    struct stat before {};
    REQUIRE(::stat(sheet.c_str(), &before) == 0);
    std::string text = io::read_file(sheet);
    const auto at = text.find("on_demand_per_gpu_hour: ");
    REQUIRE(at != std::string::npos);
    char& digit = text[text.find_first_of("0123456789", at)];
    digit = digit == '9' ? '8' : static_cast<char>(digit + 1);
    {
      std::ofstream out(sheet, std::ios::binary | std::ios::trunc);  // in place: same inode
      out << text;
    }
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    REQUIRE(::utimensat(AT_FDCWD, sheet.c_str(), times, 0) == 0);
    const Catalog edited = io::load_data_dir_cached(s.data, s.cache, &hit);
    CHECK_FALSE(hit);
    CHECK(io::to_json(edited) == io::to_json(io::load_data_dir(s.data)));
  }
}

TEST_CASE("cache bytes that are not this version's image give nothing", "[data][cache]") {
  CHECK_FALSE(io::catalog_from_cache("", "k"));
  CHECK_FALSE(io::catalog_from_cache("gpuplan-catalog-cache\nshort", "k"));
  CHECK_FALSE(io::catalog_from_cache(std::string(100, '\xff'), "k"));
}

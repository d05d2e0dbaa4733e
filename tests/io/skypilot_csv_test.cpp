#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <streambuf>

#include "io/catalogs/shipped_data.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/text/files.hpp"

using namespace gpuplan;
using gpuplan::io::parse_skypilot_csv;

namespace {

const Catalog& known() {
  static const Catalog c = io::load_shipped_catalog();
  return c;
}

std::string fixture(const std::string& name) { return std::string(GPUPLAN_TEST_FIXTURES_DIR) + "/skypilot/" + name; }

io::SkypilotCsvLoad load_fixture(const std::string& name) {
  const std::string path = fixture(name);
  return parse_skypilot_csv(io::read_file(path), path, known());
}

const Offer* offer(const io::SkypilotCsvLoad& load, const std::string& id) {
  if (load.catalog.providers.size() != 1) return nullptr;
  for (const auto& o : load.catalog.providers[0].offers)
    if (o.id == id) return &o;
  return nullptr;
}

// Lambda's column order.
const std::string kHeader = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n";

io::SkypilotCsvLoad parse(const std::string& text) { return parse_skypilot_csv(text, "test_vms.csv", known()); }

// Some error is at `line`:`column` for `field` and says `fragment`.
void expect_error(const std::string& csv, int line, int column, const std::string& field, const std::string& fragment) {
  const auto load = parse(csv);
  INFO(csv);
  REQUIRE_FALSE(load.errors.empty());
  bool found = false;
  for (const auto& e : load.errors)
    found = found || (e.where().path == "test_vms.csv" && e.where().line == line && e.where().column == column &&
                      e.field() == field && std::string(e.what()).find(fragment) != std::string::npos);
  if (!found)
    for (const auto& e : load.errors) WARN(e.what());
  CHECK(found);
  CHECK(load.catalog.providers.empty());
}

}  // namespace

TEST_CASE("Lambda's published vms.csv loads to per-GPU offers", "[io][skypilot]") {
  REQUIRE(io::read_file(fixture("lambda_vms.csv")).find("\r\n") != std::string::npos);  // CRLF as published
  const auto load = load_fixture("lambda_vms.csv");
  REQUIRE(load.errors.empty());
  REQUIRE(load.catalog.providers.size() == 1);
  const Provider& p = load.catalog.providers[0];
  CHECK(p.id == "lambda");
  CHECK(p.name == "lambda (SkyPilot catalog)");
  CHECK(p.currency == "USD");
  CHECK(p.prices_as_of == "unknown");
  CHECK(p.billing_increment_seconds == 60);  // the shipped Lambda sheet's terms
  // 24 shapes x 17 regions: 2 CPU-only shapes, 6 with an unmapped GPU, 16 mapped.
  CHECK(p.offers.size() == 16 * 17);
  CHECK(load.cpu_only_rows == 2 * 17);
  CHECK(load.unmapped == std::vector<std::string>{"A10 (17 rows)", "A6000 (51 rows)", "GH200 (17 rows)", "RTX6000 (17 rows)"});
  CHECK(load.skipped.empty());

  const Offer* h100x8 = offer(load, "gpu_8x_h100_sxm5@us-east-1");  // Price 31.92 per instance-hour
  REQUIRE(h100x8);
  CHECK(h100x8->provider == "lambda");
  CHECK(h100x8->gpu == "h100-sxm");
  CHECK(h100x8->gpus == 8);
  CHECK(h100x8->region == "us-east-1");
  CHECK(*h100x8->price(Pricing::on_demand) == Approx(31.92 / 8));
  CHECK_FALSE(h100x8->price(Pricing::spot));  // SpotPrice is empty: no spot market
  CHECK(*h100x8->vcpus == 208);
  CHECK(*h100x8->ram_gib == 1800);
  CHECK(h100x8->where.path == fixture("lambda_vms.csv"));
  CHECK(h100x8->where.line > 1);

  const Offer* pcie = offer(load, "gpu_1x_h100_pcie@us-east-1");  // "H100" + "pcie" in the type
  REQUIRE(pcie);
  CHECK(pcie->gpu == "h100-pcie");
  CHECK(*pcie->price(Pricing::on_demand) == Approx(3.29));
  const Offer* a100_80 = offer(load, "gpu_8x_a100_80gb_sxm4@asia-south-1");
  REQUIRE(a100_80);
  CHECK(a100_80->gpu == "a100-80gb-sxm");
  CHECK(*a100_80->price(Pricing::on_demand) == Approx(22.32 / 8));
  CHECK(offer(load, "gpu_2x_a100@me-west-1")->gpu == "a100-40gb-sxm");
  CHECK(offer(load, "gpu_2x_b200_sxm6@us-west-1")->gpu == "b200");
  CHECK(offer(load, "gpu_8x_v100@us-east-1")->gpu == "v100-16gb");  // SkyPilot's bare "V100"
  CHECK(*offer(load, "gpu_8x_b200_sxm6@us-east-1")->price(Pricing::on_demand) == Approx(53.52 / 8));
  CHECK_FALSE(offer(load, "cpu_4x_general@us-east-1"));
  CHECK_FALSE(offer(load, "gpu_1x_a10@us-east-1"));
  for (const auto& o : p.offers) CHECK_FALSE(o.price(Pricing::spot));
}

TEST_CASE("AWS rows repeated per zone: lowest on-demand, median spot with its range", "[io][skypilot]") {
  REQUIRE(io::read_file(fixture("aws_india_gpu_rows.csv")).find('\r') == std::string::npos);  // LF
  const auto load = load_fixture("aws_india_gpu_rows.csv");
  REQUIRE(load.errors.empty());
  REQUIRE(load.catalog.providers.size() == 1);
  const Provider& p = load.catalog.providers[0];
  CHECK(p.id == "aws-india-gpu-rows");
  CHECK(p.billing_increment_seconds == 1);
  CHECK(p.offers.size() == 16);  // 37 rows, 16 (InstanceType, Region) pairs
  CHECK(load.unmapped.empty());

  // p5.48xlarge ap-south-1: Price 66.048 in all three zones; spot 48.1142, 33.2941, 18.8933.
  const Offer* p5 = offer(load, "p5.48xlarge@ap-south-1");
  REQUIRE(p5);
  CHECK(p5->gpu == "h100-sxm");
  CHECK(*p5->price(Pricing::on_demand) == Approx(66.048 / 8));
  // Spot is the median zone, not the one-zone low (issue 15.8); the range is kept.
  CHECK(*p5->price(Pricing::spot) == Approx(33.2941 / 8));
  CHECK(*p5->spot_low == Approx(18.8933 / 8));
  CHECK(*p5->spot_high == Approx(48.1142 / 8));
  CHECK(p5->spot_zones == 3);
  // p5.4xlarge: SpotPrice empty in aps1-az3, 8.256 in the others.
  CHECK(*offer(load, "p5.4xlarge@ap-south-1")->price(Pricing::spot) == Approx(8.256));
  CHECK(offer(load, "p5.4xlarge@ap-south-1")->spot_zones == 2);
  // g6.24xlarge: spot 3.3966 (az1) and 1.9474 (az3): an even count takes the mean of the middle two.
  CHECK(*offer(load, "g6.24xlarge@ap-south-1")->price(Pricing::spot) == Approx((3.3966 + 1.9474) / 2 / 4));
  CHECK(offer(load, "p4d.24xlarge@ap-south-1")->gpu == "a100-40gb-sxm");
  CHECK(offer(load, "g5.12xlarge@ap-south-1")->gpu == "a10g");
  CHECK(offer(load, "p5en.48xlarge@ap-south-1")->gpu == "h200");
  // The offer points at the first of its rows.
  const std::string text = io::read_file(fixture("aws_india_gpu_rows.csv"));
  const int first_p5_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(text.find("\np5.48xlarge")), '\n')) + 1;
  CHECK(p5->where.line == first_p5_line);
}

TEST_CASE("other clouds' column orders load the same way", "[io][skypilot]") {
  const auto jl = load_fixture("jarvislabs_vms.csv");  // SpotPrice before Price, CRLF
  REQUIRE(jl.errors.empty());
  REQUIRE(jl.catalog.providers.size() == 1);
  CHECK(jl.catalog.providers[0].id == "jarvislabs");
  CHECK(jl.catalog.providers[0].offers.size() == 12);
  CHECK(jl.cpu_only_rows == 7);
  CHECK(jl.unmapped == std::vector<std::string>{"RTXPRO6000 (4 rows)"});
  CHECK(*offer(jl, "8x_H200_224V_2400G@IN2")->price(Pricing::on_demand) == Approx(36.72 / 8));
  CHECK(offer(jl, "1x_L4_28V_124G@IN2")->gpus == 1);  // count written "1", not "1.0"

  const auto oci = load_fixture("oci_india_gpu_rows.csv");
  REQUIRE(oci.errors.empty());
  CHECK(oci.catalog.providers[0].offers.size() == 22);
  CHECK(*offer(oci, "BM.GPU.H100.8@ap-mumbai-1")->price(Pricing::on_demand) == Approx(80.0 / 8));
  CHECK(*offer(oci, "VM.GPU3.4@ap-hyderabad-1")->price(Pricing::spot) == Approx(5.9 / 4));
  CHECK(offer(oci, "BM.GPU.MI300X.8@ap-mumbai-1")->gpu == "mi300x");
  CHECK(std::find(oci.unmapped.begin(), oci.unmapped.end(), "P100 (4 rows)") != oci.unmapped.end());

  const auto sf = load_fixture("shadeform_india_rows.csv");  // one A16 row: nothing usable
  CHECK(sf.errors.empty());
  CHECK(sf.catalog.providers.empty());
  CHECK(sf.unmapped == std::vector<std::string>{"A16 (1 row)"});
  REQUIRE(sf.skipped.size() == 1);
  CHECK(sf.skipped[0].find("not added") != std::string::npos);
}

TEST_CASE("CRLF, LF and any column order give the same offers", "[io][skypilot]") {
  const std::string lf = kHeader +
                         "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,31.92,us-east-1,\"{'Gpus': [{'Name': 'H100', 'Count': 8.0}]}\",12.0\n"
                         "gpu_8x_h100_sxm5,H100,8,208,1800,30.00,us-east-1,\"{\"\"x\"\": 1}\",\n"
                         "gpu_1x_l4,L4,1,8,32,0.8,eu,\"multi\nline, with comma\",0.3\n";
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const std::string reordered = "SpotPrice,Region,Price,AcceleratorCount,AcceleratorName,InstanceType,Arch\n"
                                "12.0,us-east-1,31.92,8.0,H100,gpu_8x_h100_sxm5,x86_64\n"
                                ",us-east-1,30.00,8,H100,gpu_8x_h100_sxm5,x86_64\n"
                                "0.3,eu,0.8,1,L4,gpu_1x_l4,\n";
  for (const std::string& text : {lf, crlf, reordered, "\xEF\xBB\xBF" + lf}) {
    const auto load = parse(text);
    INFO(text);
    REQUIRE(load.errors.empty());
    REQUIRE(load.catalog.providers.size() == 1);
    const auto& offers = load.catalog.providers[0].offers;
    REQUIRE(offers.size() == 2);
    CHECK(offers[0].id == "gpu_8x_h100_sxm5@us-east-1");
    CHECK(*offers[0].price(Pricing::on_demand) == Approx(30.0 / 8));
    CHECK(*offers[0].price(Pricing::spot) == Approx(12.0 / 8));
    CHECK(offers[0].where.line == 2);
    CHECK(offers[1].gpu == "l4");
    CHECK(*offers[1].price(Pricing::spot) == Approx(0.3));
  }
  // The quoted line break counts: the L4 row starts on line 4, the next one on line 6.
  const auto load = parse(lf + "gpu_2x_l4,L4,2,,,1.6,eu,,\n");
  REQUIRE(load.errors.empty());
  CHECK(load.catalog.providers[0].offers[1].where.line == 4);
  CHECK(load.catalog.providers[0].offers[2].where.line == 6);
  CHECK_FALSE(load.catalog.providers[0].offers[2].vcpus);
}

TEST_CASE("malformed SkyPilot CSV names file, line, column and field", "[io][skypilot]") {
  const std::string ok = "a,H100,8,1,1,8.0,r,,\n";  // Price at column 14, Region 18, SpotPrice 21
  expect_error(kHeader + ok + "a,H100,8,1,1,abc,r2,,\n", 3, 14, "Price", "expected a finite plain decimal number, got \"abc\"");
  expect_error(kHeader + "a,H100,8,1,1,-8,r,,\n", 2, 14, "Price", "at least 0");
  expect_error(kHeader + "a,H100,8,1,1,nan,r,,\n", 2, 14, "Price", "plain decimal");
  expect_error(kHeader + "a,H100,8,1,1,inf,r,,\n", 2, 14, "Price", "plain decimal");
  expect_error(kHeader + "a,H100,8,1,1,0x10,r,,\n", 2, 14, "Price", "plain decimal");
  expect_error(kHeader + "a,H100,8,1,1,1e999,r,,\n", 2, 14, "Price", "plain decimal");
  expect_error(kHeader + "a,H100,8,1,1,8.0,r,,-1\n", 2, 21, "SpotPrice", "at least 0");
  expect_error(kHeader + "a,H100,0,1,1,8.0,r,,\n", 2, 8, "AcceleratorCount", "at least 1 GPU");
  expect_error(kHeader + "a,H100,0.0,1,1,8.0,r,,\n", 2, 8, "AcceleratorCount", "at least 1 GPU");
  expect_error(kHeader + "a,H100,-8,1,1,8.0,r,,\n", 2, 8, "AcceleratorCount", "at least 0");
  expect_error(kHeader + "a,H100,,1,1,8.0,r,,\n", 2, 8, "AcceleratorCount", "empty field");
  expect_error(kHeader + "a,H100,eight,1,1,8.0,r,,\n", 2, 8, "AcceleratorCount", "\"eight\"");
  expect_error(kHeader + "a,H100,4096,1,1,8.0,r,,\n", 2, 8, "AcceleratorCount", "at most 1024");
  expect_error(kHeader + "a,H100,8,many,1,8.0,r,,\n", 2, 10, "vCPUs", "\"many\"");
  expect_error(kHeader + "a,H100,8,1,1,8.0,,,\n", 2, 18, "Region", "empty");
  expect_error(kHeader + "a,H100,8,1,1,1e300,r,,\n", 2, 14, "Price", "more than 1e7");
  expect_error(kHeader + ok + "a,H100,8,1,1,8.0,r\n", 3, 1, "", "expected 9 fields as in the header, got 7");
  expect_error(kHeader + ok + "a,H100,8,1,1,8.0,r,\"{'Gpus': [\n\n", 3, 20, "", "unterminated quoted field");
  expect_error(kHeader + "a,H1\"00,8,1,1,8.0,r,,\n", 2, 5, "", "inside an unquoted field");
  expect_error(kHeader + "a,\"H100\"x,8,1,1,8.0,r,,\n", 2, 9, "", "after a closing");
  expect_error(kHeader + "a,H100,8,1,1,8.0,r,,\rb\n", 2, 21, "", "carriage return");
  expect_error(kHeader + ok + "a,A100,8,1,1,8.0,r,,\n", 3, 3, "AcceleratorName", "line 2 says 8x H100");
  expect_error("InstanceType,AcceleratorName,AcceleratorCount,Region\n" + ok, 1, 1, "Price", "missing required column");
  expect_error("InstanceType,AcceleratorName,AcceleratorCount,Price,Region,Price\n", 1, 60, "Price", "named twice");
  expect_error(kHeader, 1, 1, "", "no data rows");
  expect_error("", 1, 1, "", "empty file");
  expect_error(kHeader + std::string(300, ',') + "\n", 2, 257, "", "more than 256 fields");

  // Many bad rows: the first 100 problems, then a note that reading stopped.
  std::string many = kHeader;
  for (int i = 0; i < 500; ++i) many += "a" + std::to_string(i) + ",H100,8,1,1,x,r,,\n";
  const auto load = parse(many);
  REQUIRE(load.errors.size() == io::kMaxSkypilotErrors + 1);
  CHECK(std::string(load.errors.back().what()).find("stopping") != std::string::npos);
}

TEST_CASE("rows gpuplan cannot price are reported, not guessed", "[io][skypilot]") {
  const auto load = parse(kHeader +
                          "a,TPU-V5E,4,1,1,8.0,r,,\n"                 // no such GPU
                          "b,TPU-V5E,4,1,1,8.0,r2,,\n"
                          ",H100,1,,,2.0,r,,\n"                       // GCP accelerator-only row
                          "c,A10G,0.5,1,1,0.5,r,,\n"                  // GPU partition
                          "d,H100,8,1,1,0,r,,0\n"                     // zero prices
                          "e,H100,8,1,1,,r,,\n"                       // no price at all
                          "cpu,,,4,16,0.2,r,,\n"                      // CPU-only
                          "f,H100,8,1,1,,r,,16.0\n");                 // spot only
  REQUIRE(load.errors.empty());
  CHECK(load.unmapped == std::vector<std::string>{"TPU-V5E (2 rows)"});
  CHECK(load.cpu_only_rows == 1);
  REQUIRE(load.catalog.providers.size() == 1);
  REQUIRE(load.catalog.providers[0].offers.size() == 1);
  const Offer& f = load.catalog.providers[0].offers[0];
  CHECK(f.id == "f@r");
  CHECK_FALSE(f.price(Pricing::on_demand));  // empty Price: not offered on demand, not $0
  CHECK(*f.price(Pricing::spot) == Approx(2.0));
  CHECK(load.skipped.size() == 4);
  auto says = [&](const std::string& s) {
    return std::any_of(load.skipped.begin(), load.skipped.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
  };
  CHECK(says("1 accelerator-only row (empty InstanceType)"));
  CHECK(says("1 row with a fractional AcceleratorCount"));
  CHECK(says("2 prices of 0"));
  CHECK(says("2 offers (InstanceType@Region) left out"));

  // "V100" is ambiguous in the catalog; SkyPilot's bare V100 is the 16 GB part.
  const auto v = parse(kHeader + "a,V100,8,1,1,8.0,r,,\nb,V100-32GB,8,1,1,8.0,r,,\n");
  REQUIRE(v.errors.empty());
  CHECK(v.catalog.providers[0].offers[0].gpu == "v100-16gb");
  CHECK(v.catalog.providers[0].offers[1].gpu == "v100-32gb");
  // An ambiguous name without a SkyPilot meaning is reported with its candidates.
  Catalog twins = known();
  for (auto& g : twins.gpus)
    if (g.id == "l4" || g.id == "t4") g.aliases.push_back("Twin");
  const auto t = parse_skypilot_csv(kHeader + "a,Twin,1,1,1,1.0,r,,\n", "t.csv", twins);
  CHECK(t.unmapped == std::vector<std::string>{"Twin (1 row; ambiguous: l4, t4)"});
  // The SXM/PCIe tie-break follows the instance type in both directions, and does nothing when
  // the type and the name disagree.
  const auto form = parse(kHeader + "x_pcie,A100-80GB,1,1,1,1.0,r,,\ny_sxm4,H100 PCIe,1,1,1,1.0,r,,\n");
  CHECK(form.catalog.providers[0].offers[0].gpu == "a100-80gb-pcie");
  CHECK(form.catalog.providers[0].offers[1].gpu == "h100-pcie");
  Catalog zed = known();
  for (auto& g : zed.gpus)
    if (g.id == "h100-pcie") g.aliases.push_back("Zed");
  const auto z = parse_skypilot_csv(kHeader + "z_sxm5,Zed,8,1,1,8.0,r,,\nz,Zed,1,1,1,1.0,r,,\n", "z.csv", zed);
  CHECK(z.catalog.providers[0].offers[0].gpu == "h100-sxm");
  CHECK(z.catalog.providers[0].offers[1].gpu == "h100-pcie");
}

TEST_CASE("SkyPilot CSV detection and provider ids", "[io][skypilot]") {
  CHECK(io::looks_like_skypilot_csv(kHeader));
  CHECK(io::looks_like_skypilot_csv("InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\r\n"));
  CHECK_FALSE(io::looks_like_skypilot_csv("gpus:\n  - id: x\n"));
  CHECK_FALSE(io::looks_like_skypilot_csv("InstanceType,AcceleratorName,AcceleratorCount\n"));
  CHECK_FALSE(io::looks_like_skypilot_csv(""));

  CHECK(io::skypilot_provider_id("catalogs/v8/lambda/vms.csv") == "lambda");
  CHECK(io::skypilot_provider_id("/tmp/x/lambda_vms.csv") == "lambda");
  CHECK(io::skypilot_provider_id("nebius-vms.csv") == "nebius");
  CHECK(io::skypilot_provider_id("aws_india_gpu_rows.csv") == "aws-india-gpu-rows");
  CHECK(io::skypilot_provider_id("My Prices_VMS.csv") == "my-prices");
  CHECK(io::skypilot_provider_id("_vms.csv") == "vms");
  CHECK(io::skypilot_provider_id("___.csv") == "skypilot");
}

TEST_CASE("load_catalogs reads SkyPilot CSV and reports what it left out", "[io][skypilot]") {
  std::vector<std::string> notices;
  const Catalog c = io::load_catalogs({fixture("lambda_vms.csv"), fixture("aws_india_gpu_rows.csv")}, &notices);
  const auto lambda = c.find_provider("lambda");
  REQUIRE(lambda.found);
  CHECK(lambda.found->offers.size() == 272);  // replaces the shipped sheet of the same id
  CHECK(c.find_provider("aws-india-gpu-rows").found);
  CHECK(c.find_provider("aws").found);  // the shipped AWS sheet stays
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].find("lambda_vms.csv: rows left out, accelerator not in the GPU catalog: A10 (17 rows)") != std::string::npos);
  CHECK_THROWS_AS(io::load_catalogs({fixture("../bad_catalog.yaml")}), InputErrors);
}

TEST_CASE("GCP's sheet: host VM row + accelerator row, as GCP bills them", "[io][skypilot][gcp]") {
  // Real rows of skypilot-catalog catalogs/v8/gcp/vms.csv (tests/fixtures/skypilot/README.md).
  const auto load = load_fixture("gcp_vms.csv");
  REQUIRE(load.errors.empty());
  REQUIRE(load.catalog.providers.size() == 1);
  const Provider& p = load.catalog.providers[0];
  CHECK(p.id == "gcp");
  CHECK(p.offers.size() == 10);
  CHECK(load.cpu_only_rows == 2);  // c2-standard-16, n4-highmem-8

  // a3-highgpu-8g in asia-south1 (Mumbai), zone c, by hand:
  //   host 9.83846 + 8 x H100 81.50728 = 91.34574 USD/h -> 11.4182175 per GPU-hour;
  //   spot 2.25285 + 18.64 = 20.89285 -> 2.61160625 per GPU-hour.
  const Offer* mumbai = offer(load, "a3-highgpu-8g@asia-south1");
  REQUIRE(mumbai);
  CHECK(mumbai->gpus == 8);
  CHECK(mumbai->gpu == "h100-sxm");
  CHECK(*mumbai->price(Pricing::on_demand) == Approx(11.4182175).epsilon(1e-12));
  CHECK(*mumbai->price(Pricing::spot) == Approx(2.61160625).epsilon(1e-12));
  CHECK(*mumbai->vcpus == 208);
  CHECK(mumbai->country_code() == "IN");
  CHECK(mumbai->where.line == 10);  // the host row
  // The 1-GPU shape: 1.22981 + 10.18841 = 11.41822.
  CHECK(*offer(load, "a3-highgpu-1g@asia-south1")->price(Pricing::on_demand) == Approx(11.41822).epsilon(1e-12));
  // us-central1: three zones at one price; host 9.46006 + 33.60609 = 43.06615 -> 5.38326875.
  const Offer* iowa = offer(load, "a3-highgpu-8g@us-central1");
  REQUIRE(iowa);
  CHECK(*iowa->price(Pricing::on_demand) == Approx(43.06615 / 8).epsilon(1e-12));
  CHECK(*iowa->price(Pricing::spot) == Approx((2.88933 + 23.9408) / 8).epsilon(1e-12));
  CHECK(iowa->spot_zones == 3);
  CHECK(iowa->country_code() == "US");
  // A100 40GB: 5.91582 + 23.47126 = 29.38708 -> 3.673385; europe-west4 6.51251 + 12.90919.
  const Offer* a2 = offer(load, "a2-highgpu-8g@us-central1");
  REQUIRE(a2);
  CHECK(a2->gpu == "a100-40gb-sxm");
  CHECK(*a2->price(Pricing::on_demand) == Approx(3.673385).epsilon(1e-12));
  CHECK(*offer(load, "a2-highgpu-8g@europe-west4")->price(Pricing::on_demand) == Approx(19.4217 / 8).epsilon(1e-12));
  // H200 (A3 Ultra) in Mumbai, zone b: 12.75664 + 36.60258; spot 2.92129 + 38.7368.
  const Offer* ultra = offer(load, "a3-ultragpu-8g@asia-south1");
  REQUIRE(ultra);
  CHECK(ultra->gpu == "h200");
  CHECK(*ultra->price(Pricing::on_demand) == Approx(49.35922 / 8).epsilon(1e-12));
  CHECK(*ultra->price(Pricing::spot) == Approx(41.65809 / 8).epsilon(1e-12));
  CHECK(offer(load, "a3-highgpu-8g@asia-south2")->country_code() == "IN");  // Delhi

  // a4-highgpu-8g's host is priced 0.0 in the sheet: no price is made up from the B200 row alone.
  CHECK_FALSE(offer(load, "a4-highgpu-8g@us-central1"));
  auto says = [&](const std::string& s) {
    return std::any_of(load.skipped.begin(), load.skipped.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
  };
  CHECK(says("2 accelerator-only rows (empty InstanceType) left out"));  // H100x2 and L4: no host here
  CHECK(says("1 offer (InstanceType@Region) left out"));                  // a4: no usable price
}

TEST_CASE("GCP host rows pair only with their own zone's accelerator row", "[io][skypilot][gcp]") {
  const std::string h = "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n";
  // Host in zone a, accelerator only in zone b: nothing is billed together.
  const auto apart = parse(h + "a3-highgpu-8g,208,1872,,,,r,r-a,10,2\n,,,H100,8,x,r,r-b,80,20\n");
  REQUIRE(apart.errors.empty());
  CHECK(apart.catalog.providers.empty());
  // Two zones with different spot: the median of two is their mean; the range is kept.
  const auto two = parse(h + "a3-highgpu-8g,208,1872,,,,r,r-a,10,2\na3-highgpu-8g,208,1872,,,,r,r-b,10,4\n"
                             ",,,H100,8,x,r,r-a,70,14\n,,,H100,8,x,r,r-b,70,30\n");
  REQUIRE(two.errors.empty());
  const Offer& o = two.catalog.providers.at(0).offers.at(0);
  CHECK(*o.price(Pricing::on_demand) == Approx(80.0 / 8));
  CHECK(*o.price(Pricing::spot) == Approx((16.0 + 34.0) / 2 / 8));
  CHECK(*o.spot_low == Approx(16.0 / 8));
  CHECK(*o.spot_high == Approx(34.0 / 8));
  // g2-standard-48 carries 4 L4; g2-standard-4 one (the prefix alone must not decide).
  const auto g2 = parse(h + "g2-standard-48,48,192,,,,r,r-a,1,\ng2-standard-4,4,16,,,,r,r-a,0.2,\n"
                            ",,,L4,4,x,r,r-a,2.4,\n,,,L4,1,x,r,r-a,0.6,\n");
  REQUIRE(g2.errors.empty());
  REQUIRE(g2.catalog.providers.at(0).offers.size() == 2);
  CHECK(g2.catalog.providers[0].offers[0].gpus == 4);
  CHECK(*g2.catalog.providers[0].offers[0].price(Pricing::on_demand) == Approx(3.4 / 4));
  CHECK(g2.catalog.providers[0].offers[1].gpus == 1);
  CHECK(*g2.catalog.providers[0].offers[1].price(Pricing::on_demand) == Approx(0.8));
}

TEST_CASE("CSV errors inside a multi-line quoted record name the field's own line", "[io][skypilot]") {
  // The record starts on line 2; its quoted GpuInfo spans lines 2-4, so Price sits on line 4.
  const std::string csv = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price,Region\n"
                          "a,H100,8,\"{'Gpus':\n[1,\n2]}\",abc,r\n";
  expect_error(csv, 4, 6, "Price", "plain decimal");
}

TEST_CASE("a SkyPilot sheet streams from disk in constant memory", "[io][skypilot]") {
  // Reading through a stream gives the same offers as reading the text.
  const std::string path = fixture("gcp_vms.csv");
  std::ifstream in(path, std::ios::binary);
  const auto streamed = io::parse_skypilot_csv(in, path, known());
  const auto whole = load_fixture("gcp_vms.csv");
  REQUIRE(streamed.errors.empty());
  REQUIRE(streamed.catalog.providers.size() == 1);
  REQUIRE(streamed.catalog.providers[0].offers.size() == whole.catalog.providers[0].offers.size());
  for (std::size_t i = 0; i < whole.catalog.providers[0].offers.size(); ++i) {
    CHECK(streamed.catalog.providers[0].offers[i].id == whole.catalog.providers[0].offers[i].id);
    CHECK(streamed.catalog.providers[0].offers[i].price(Pricing::spot) == whole.catalog.providers[0].offers[i].price(Pricing::spot));
  }
}

TEST_CASE("a sheet of many offers, zones interleaved, gathers each offer once", "[io][skypilot]") {
  // 10,000 offers (past the index's growth and the gathering's 4,096-offer chunks), each with
  // three zone rows, the zones of all offers interleaved: offer k's spot prices are k+1, k+3, k+2.
  constexpr int kOffers = 10000;
  std::string csv = kHeader;
  for (int zone : {1, 3, 2})
    for (int k = 0; k < kOffers; ++k)
      csv += "t" + std::to_string(k) + ",H100,8,1,1," + std::to_string(100 + k) + ",r,," + std::to_string(k + zone) + "\n";
  const auto load = parse(csv);
  REQUIRE(load.errors.empty());
  REQUIRE(load.catalog.providers.size() == 1);
  const auto& offers = load.catalog.providers[0].offers;
  REQUIRE(offers.size() == kOffers);
  for (int k : {0, 4095, 4096, 9999}) {
    const Offer& o = offers[static_cast<std::size_t>(k)];  // in order of first appearance
    INFO(o.id);
    CHECK(o.id == "t" + std::to_string(k) + "@r");
    CHECK(o.where.line == k + 2);
    CHECK(*o.price(Pricing::on_demand) == Approx((100.0 + k) / 8));
    CHECK(*o.price(Pricing::spot) == Approx((k + 2.0) / 8));  // the median zone
    CHECK(*o.spot_low == Approx((k + 1.0) / 8));
    CHECK(*o.spot_high == Approx((k + 3.0) / 8));
    CHECK(o.spot_zones == 3);
  }
}

namespace {

// A stream that cannot seek (a pipe): the reader cannot learn the sheet's size up front.
class PipeBuf : public std::streambuf {
 public:
  explicit PipeBuf(std::string text) : text_(std::move(text)) { setg(text_.data(), text_.data(), text_.data() + text_.size()); }

 private:
  std::string text_;
};

}  // namespace

TEST_CASE("a sheet reads the same from its text, a seekable stream and a pipe", "[io][skypilot]") {
  // Over 2 MiB, so records and quoted fields (with doubled quotes and line breaks) straddle the
  // reader's 1 MiB pieces; every seventh offer has no price at all and is left out. The text and
  // a seekable stream reserve room for the offers from the size; the pipe grows as it reads.
  std::string csv = kHeader;
  const std::string info = "\"{'Gpus': [{'Name': \"\"H100\"\",\n 'Count': 8}]}\"";
  int k = 0;
  while (csv.size() < (9u << 18)) {
    const std::string price = k % 7 == 3 ? "" : std::to_string(10 + k % 13);
    const std::string spot = k % 7 == 3 ? "" : std::to_string(1 + k % 5);
    csv += "t" + std::to_string(k) + ",H100,8,96,1024," + price + ",reg-" + std::to_string(k % 3) + "," + info + "," + spot + "\n";
    ++k;
  }
  const auto text = parse(csv);
  std::istringstream seekable(csv);
  const auto file_like = io::parse_skypilot_csv(seekable, "test_vms.csv", known());
  PipeBuf buf(csv);
  std::istream pipe(&buf);
  const auto piped = io::parse_skypilot_csv(pipe, "test_vms.csv", known());
  REQUIRE(text.errors.empty());
  REQUIRE(text.catalog.providers.size() == 1);
  const auto& offers = text.catalog.providers[0].offers;
  CHECK(offers.size() == static_cast<std::size_t>(k - (k + 3) / 7));
  CHECK(offers[3].id == "t4@reg-1");  // t3 has no price
  CHECK(offers[3].where.line == 2 + 2 * 4);
  CHECK(text.skipped.size() == 1);
  for (const auto* other : {&file_like, &piped}) {
    REQUIRE(other->errors.empty());
    REQUIRE(other->catalog.providers.size() == 1);
    const auto& same = other->catalog.providers[0].offers;
    REQUIRE(same.size() == offers.size());
    std::size_t i = 0;  // the first offer that differs (one CHECK, not one per offer)
    while (i < offers.size() && same[i].id == offers[i].id && same[i].where.line == offers[i].where.line &&
           same[i].price(Pricing::on_demand) == offers[i].price(Pricing::on_demand) &&
           same[i].price(Pricing::spot) == offers[i].price(Pricing::spot))
      ++i;
    CHECK(i == offers.size());
    CHECK(other->skipped == text.skipped);
  }
}

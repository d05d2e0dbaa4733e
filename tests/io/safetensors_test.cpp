#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "gpuplan/error.hpp"
#include "io/model_files/hf_config.hpp"

using namespace gpuplan;

namespace {

std::string with_header(const std::string& header, std::size_t data_bytes) {
  std::string out(8, '\0');
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + std::string(data_bytes, '\0');
}

std::string temp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("gpuplan_st_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}

}  // namespace

TEST_CASE("safetensors headers count parameters per dtype", "[io][safetensors]") {
  const std::string h = R"({"__metadata__":{"format":"pt"},"a":{"dtype":"BF16","shape":[4,8],"data_offsets":[0,64]},)"
                        R"("b":{"dtype":"F32","shape":[8],"data_offsets":[64,96]}})";
  const std::string file = with_header(h, 96);
  const io::WeightCount w = io::parse_safetensors(file, file.size(), "m.safetensors");
  CHECK(w.total == 40);
  CHECK(w.by_dtype.at("BF16") == 32);
  CHECK(w.by_dtype.at("F32") == 8);
}

TEST_CASE("lying, truncated and oversized safetensors are refused", "[io][safetensors]") {
  const std::string h = R"({"a":{"dtype":"BF16","shape":[4,8],"data_offsets":[0,64]}})";
  std::string file = with_header(h, 64);
  CHECK_THROWS_WITH(io::parse_safetensors(file.substr(0, 4), 4, "t.st"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(io::parse_safetensors(file.substr(0, 20), 20, "t.st"), Catch::Contains("past the end"));
  std::string huge(8, '\xff');
  CHECK_THROWS_WITH(io::parse_safetensors(huge, 8, "t.st"), Catch::Contains("100 MB"));
  const std::string lie = with_header(R"({"a":{"dtype":"BF16","shape":[4,8],"data_offsets":[0,60]}})", 64);
  CHECK_THROWS_WITH(io::parse_safetensors(lie, lie.size(), "t.st"), Catch::Contains("header lies"));
  const std::string past = with_header(R"({"a":{"dtype":"BF16","shape":[4,8],"data_offsets":[0,64]}})", 10);
  CHECK_THROWS_WITH(io::parse_safetensors(past, past.size(), "t.st"), Catch::Contains("past the end"));
  const std::string garbage = with_header("not json", 0);
  CHECK_THROWS_WITH(io::parse_safetensors(garbage, garbage.size(), "t.st"), Catch::Contains("corrupt"));
}

TEST_CASE("an index file sums its shards, reading headers only", "[io][safetensors]") {
  const std::string dir = temp_dir();
  const std::string s1 = with_header(R"({"a":{"dtype":"BF16","shape":[10],"data_offsets":[0,20]}})", 20);
  const std::string s2 = with_header(R"({"b":{"dtype":"BF16","shape":[5],"data_offsets":[0,10]}})", 10);
  std::ofstream(dir + "/s1.safetensors", std::ios::binary) << s1;
  std::ofstream(dir + "/s2.safetensors", std::ios::binary) << s2;
  std::ofstream(dir + "/model.safetensors.index.json") << R"({"metadata":{"total_size":30},
    "weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})";
  const io::WeightCount w = io::read_safetensors(dir + "/model.safetensors.index.json");
  CHECK(w.total == 15);
  CHECK(w.files == 2);
  std::ofstream(dir + "/evil.index.json") << R"({"weight_map":{"a":"../../etc/passwd"}})";
  CHECK_THROWS_WITH(io::read_safetensors(dir + "/evil.index.json"), Catch::Contains("beside the index"));
  std::filesystem::remove_all(dir);
}

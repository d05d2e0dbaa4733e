// Header-only reading of safetensors files and their index. The header is streamed through a
// SAX handler rather than built into a JSON tree: a 1M-tensor header took 816 MB as a tree,
// and the handler needs only a few numbers per tensor.
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <unordered_set>

#include "gpuplan/error.hpp"
#include "io/model_files/hf_config.hpp"
#include "io/text/files.hpp"
#include "io/text/input_text.hpp"
#include "io/text/json_text.hpp"

namespace gpuplan::io {
namespace {

using nlohmann::json;

double dtype_bytes(const std::string& d) {
  static const std::map<std::string, double> kSizes = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1}, {"U8", 1},
      {"U16", 2}, {"U32", 4}, {"U64", 8}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}, {"F4", 0.5}};
  auto it = kSizes.find(d);
  return it == kSizes.end() ? 0 : it->second;
}

// "model.layers.12.mlp.experts.3.w1.weight" -> "model.layers.*.mlp.experts.*.w1.weight", with
// the numbers found; -1 where the name has none.
std::string pattern_of(const std::string& name, long* layer, long* expert) {
  *layer = *expert = -1;
  std::string out;
  std::size_t i = 0;
  while (i < name.size()) {
    const bool at_part = i == 0 || name[i - 1] == '.';
    std::size_t j = i;
    while (j < name.size() && name[j] >= '0' && name[j] <= '9') ++j;
    if (at_part && j > i && j - i <= 6 && (j == name.size() || name[j] == '.')) {
      const long n = std::stol(name.substr(i, j - i));
      const bool expert_part = out.size() >= 8 && out.compare(out.size() - 8, 8, "experts.") == 0;
      (expert_part ? *expert : *layer) = std::max(expert_part ? *expert : *layer, n);
      out += '*';
      i = j;
      continue;
    }
    out += name[i++];
  }
  return out;
}

// Shapes of names that could describe the architecture; bounded so a hostile header with a
// million distinct names cannot grow it.
constexpr std::size_t kMaxShapeNames = 512;

class HeaderHandler : public nlohmann::json_sax<json> {
 public:
  HeaderHandler(std::string path, std::uint64_t data_size, WeightCount& out)
      : path_(std::move(path)), data_size_(data_size), out_(out) {}

  std::optional<InputError> error;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // non-empty [begin, end) per tensor

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("boolean"); }
  bool number_integer(number_integer_t v) override { return v < 0 ? fail(field_name(), "expected non-negative integers") : number(static_cast<std::uint64_t>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(v); }
  bool number_float(number_float_t, const string_t&) override { return fail(field_name(), "expected non-negative integers"); }
  bool binary(binary_t&) override { return scalar("binary"); }
  bool string(string_t& s) override {
    if (depth_ == 2 && in_metadata_) return true;
    if (depth_ == 2 && field_ == Field::dtype) {
      dtype_ = s;
      return true;
    }
    return scalar("string");
  }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 2) {
      in_metadata_ = name_ == "__metadata__";
      seen_ = 0;
      dtype_.clear();
      shape_.clear();
      offsets_.clear();
      metadata_keys_.clear();
      return true;
    }
    return fail(in_metadata_ ? "__metadata__" : name_, in_metadata_ ? "__metadata__ values must be strings"
                                                                    : "corrupt safetensors header: unexpected object");
  }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      name_ = k;
      if (!names_.insert(std::hash<std::string>{}(k)).second)
        return fail(quote_input(k), "duplicate tensor name in the safetensors header (the later entry would silently win)");
      return true;
    }
    if (in_metadata_) {
      if (!metadata_keys_.insert(k).second) return fail("__metadata__." + quote_input(k), "duplicate key in the safetensors header");
      return true;
    }
    const int bit = k == "dtype" ? 1 : k == "shape" ? 2 : k == "data_offsets" ? 4 : 0;
    if (bit == 0) return fail(name_ + "." + quote_input(k), "unexpected key in a tensor entry (expected dtype, shape, data_offsets)");
    if (seen_ & bit) return fail(name_ + "." + k, "duplicate key in the safetensors header");
    seen_ |= bit;
    field_ = bit == 1 ? Field::dtype : bit == 2 ? Field::shape : Field::offsets;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1 && !in_metadata_) return finish_tensor();
    if (depth_ == 1) in_metadata_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 3 && !in_metadata_ && (field_ == Field::shape || field_ == Field::offsets)) return true;
    return fail(field_name(), depth_ == 1 ? "corrupt safetensors header: expected a JSON object" : "corrupt safetensors header: unexpected list");
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    return fail("", "corrupt safetensors header: " + json_error_text(e));
  }

 private:
  enum class Field { none, dtype, shape, offsets };

  std::string field_name() const { return depth_ <= 1 ? std::string() : quote_input(name_); }
  bool fail(const std::string& field, const std::string& problem) {
    if (!error) error.emplace(SourceLocation{path_, 0, 0}, field, problem);
    return false;
  }
  bool scalar(const char* what) {
    if (depth_ == 2 && in_metadata_) return fail("__metadata__." + quote_input(name_), "__metadata__ values must be strings");
    if (depth_ == 0) return fail("", "corrupt safetensors header: expected a JSON object");
    return fail(field_name(), std::string("corrupt safetensors header: unexpected ") + what);
  }
  bool number(std::uint64_t v) {
    if (depth_ != 3) return scalar("number");
    (field_ == Field::shape ? shape_ : offsets_).push_back(v);
    return true;
  }
  bool finish_tensor();
  void keep_shape();

  std::string path_;
  std::uint64_t data_size_;
  WeightCount& out_;
  int depth_ = 0;
  bool in_metadata_ = false;
  std::string name_;
  int seen_ = 0;
  Field field_ = Field::none;
  std::string dtype_;
  std::vector<std::uint64_t> shape_, offsets_;
  std::unordered_set<std::size_t> names_;  // hashes: a set of a million names took ~100 MB
  std::set<std::string> metadata_keys_;
};

bool HeaderHandler::finish_tensor() {
  const std::string n = quote_input(name_);
  if (seen_ != 7 || offsets_.size() != 2) return fail(n, "corrupt safetensors header: tensor needs dtype, shape and data_offsets");
  const double size = dtype_bytes(dtype_);
  if (size == 0) return fail(n + ".dtype", "unknown safetensors dtype \"" + quote_input(dtype_) + "\"");
  double elems = 1;
  for (const auto d : shape_) elems *= static_cast<double>(d);
  if (elems > 1e15) return fail(n + ".shape", "tensor is implausibly large");
  const std::uint64_t b = offsets_[0], e = offsets_[1];
  if (e < b || e > data_size_) return fail(n + ".data_offsets", "points past the end of the file (truncated download?)");
  if (static_cast<double>(e - b) != elems * size)
    return fail(n, "header lies: shape and dtype need " + std::to_string(static_cast<std::uint64_t>(elems * size)) +
                       " bytes, data_offsets span " + std::to_string(e - b));
  if (e > b) ranges.emplace_back(b, e);
  out_.total += elems;
  if (out_.total > kMaxSafetensorsParams)
    return fail("", "the header claims more than 10T parameters: not a model this tool can plan for");
  out_.by_dtype[dtype_] += elems;
  ++out_.tensors;
  keep_shape();
  return true;
}

void HeaderHandler::keep_shape() {
  long layer = -1, expert = -1;
  const std::string pattern = pattern_of(name_, &layer, &expert);
  TensorShapes& s = out_.shapes;
  if (layer >= 0) s.layers = static_cast<int>(std::max<long>(s.layers, layer + 1));
  if (expert >= 0) s.experts = static_cast<int>(std::max<long>(s.experts, expert + 1));
  if (s.by_name.size() < kMaxShapeNames || s.by_name.count(pattern)) s.by_name.emplace(pattern, shape_);
}

std::uint64_t header_length(const std::string& bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  return n;
}

// Names what `path` is when it is not a regular file: opening a FIFO blocks, a device never
// ends, and a symlink loop is not "no such file".
void require_regular(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw InputError({path, 0, 0}, "", err == ENOENT ? "cannot open file: no such file"
                                       : err == ELOOP ? "cannot open file: too many levels of symbolic links (a symlink loop)"
                                                      : std::string("cannot open file: ") + std::strerror(err));
  }
  if (S_ISREG(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
  throw InputError({path, 0, 0}, "", std::string("is ") + kind + ", expected a regular file");
}

void add(WeightCount& total, const WeightCount& c) {
  total.total += c.total;
  for (const auto& [d, n] : c.by_dtype) total.by_dtype[d] += n;
  total.files += c.files;
  total.tensors += c.tensors;
  TensorShapes& s = total.shapes;
  s.layers = std::max(s.layers, c.shapes.layers);
  s.experts = std::max(s.experts, c.shapes.experts);
  for (const auto& [k, v] : c.shapes.by_name)
    if (s.by_name.size() < kMaxShapeNames || s.by_name.count(k)) s.by_name.emplace(k, v);
}

WeightCount read_one_file(const std::string& path) {
  require_regular(path);
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  note_input_path(path);
  if (ec || !in) throw InputError({path, 0, 0}, "", std::string("cannot open file: ") + std::strerror(errno));
  std::string head(8, '\0');
  in.read(head.data(), 8);
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.size() == 8) {
    const std::uint64_t n = header_length(head);
    if (n <= kMaxSafetensorsHeader && n <= size - 8) {
      head.resize(8 + static_cast<std::size_t>(n));
      in.read(head.data() + 8, static_cast<std::streamsize>(n));
      head.resize(8 + static_cast<std::size_t>(in.gcount()));
    }
  }
  return parse_safetensors(head, size, path);
}

}  // namespace

WeightCount parse_safetensors(const std::string& bytes, std::uint64_t file_size, const std::string& path) {
  if (bytes.size() < 8) throw InputError({path, 0, 0}, "", "truncated safetensors file: shorter than its 8-byte header length");
  const std::uint64_t n = header_length(bytes);
  if (n > kMaxSafetensorsHeader)
    throw InputError({path, 0, 0}, "", "not a safetensors file: its 8-byte header length is over the 100 MB limit");
  // The length is not printed: in a file that is not safetensors those are its first 8 bytes.
  if (file_size < 8 || n > file_size - 8 || n + 8 > bytes.size())
    throw InputError({path, 0, 0}, "", "truncated or not a safetensors file: its header length runs past the end of the file");
  WeightCount out;
  out.files = 1;
  HeaderHandler h(path, file_size - 8 - n, out);
  const auto first = bytes.begin() + 8;
  const bool ok = json::sax_parse(first, first + static_cast<std::ptrdiff_t>(n), &h);
  if (!ok || h.error) throw h.error ? *h.error : InputError({path, 0, 0}, "", "corrupt safetensors header");
  // Two tensors may not share bytes: a header that maps 100k tensors onto one range would
  // count its parameters 100k times.
  std::sort(h.ranges.begin(), h.ranges.end());
  for (std::size_t i = 1; i < h.ranges.size(); ++i)
    if (h.ranges[i].first < h.ranges[i - 1].second)
      throw InputError({path, 0, 0}, "data_offsets",
                       "two tensors overlap in the data section ([" + std::to_string(h.ranges[i - 1].first) + ", " +
                           std::to_string(h.ranges[i - 1].second) + ") and [" + std::to_string(h.ranges[i].first) + ", " +
                           std::to_string(h.ranges[i].second) + ")): a corrupt or forged header");
  return out;
}

WeightCount parse_safetensors_index(const std::string& text, const std::string& path) {
  namespace fs = std::filesystem;
  const json j = parse_json_strict(text, path, "safetensors index", 16);
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw InputError({path, 1, 1}, "weight_map", "missing: expected a model.safetensors.index.json");
  std::set<std::string> shards;
  for (const auto& [k, v] : j["weight_map"].items()) {
    // The key is located only for an error: a search per entry made a 40,000-entry index
    // quadratic (58 s of CPU).
    auto bad = [&, &k = k](const std::string& field, const std::string& problem) {
      return InputError(json_locate_key(text, path, k), field, problem);
    };
    if (!v.is_string()) throw bad("weight_map." + quote_input(k), "expected a shard file name");
    const std::string s = v;
    if (s.find("..") != std::string::npos || (!s.empty() && s[0] == '/'))
      throw bad("weight_map." + quote_input(k), "shard path must stay beside the index");
    // A shard is a .safetensors file, never another index: this is what stops an index that
    // names itself, two that name each other, or a tree of indexes fanning out.
    if (s.size() < 12 || s.compare(s.size() - 12, 12, ".safetensors") != 0)
      throw bad("weight_map." + quote_input(k), "expected a .safetensors shard, got \"" + quote_input(s) + "\"");
    shards.insert(s);
    if (shards.size() > kMaxSafetensorsShards)
      throw bad("weight_map", "more than " + std::to_string(kMaxSafetensorsShards) + " shards");
  }
  WeightCount total;
  std::set<std::string> files;  // a shard reached under two names (a link) is counted once
  for (const auto& s : shards) {
    const std::string shard = (fs::path(path).parent_path() / s).string();
    std::error_code ec;
    const std::string real = fs::weakly_canonical(shard, ec).string();
    if (!ec && !files.insert(real).second)
      throw InputError({path, 0, 0}, "weight_map", "shard \"" + quote_input(s) + "\" is the same file as another shard");
    add(total, read_one_file(shard));
    if (total.total > kMaxSafetensorsParams)
      throw InputError({path, 0, 0}, "", "the shards claim more than 10T parameters: not a model this tool can plan for");
  }
  return total;
}

WeightCount read_safetensors(const std::string& path) {
  if (path.size() >= 5 && path.substr(path.size() - 5) == ".json") {
    require_regular(path);
    return parse_safetensors_index(read_file(path, 64u << 20), path);
  }
  return read_one_file(path);
}

}  // namespace gpuplan::io

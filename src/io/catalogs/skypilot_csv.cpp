#include "io/catalogs/skypilot_csv.hpp"
#include "io/text/files.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <unordered_map>
#include <unordered_set>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>

#include <sys/mman.h>

#include "gpuplan/name_match.hpp"

namespace gpuplan::io {
namespace {

// ---------------------------------------------------------------- RFC 4180 reader

struct CsvField {
  std::string text;
  int line = 0;    // line where the field starts (a quoted field may span lines)
  int column = 0;  // 1-based byte column where the field starts
};

struct CsvRecord {
  std::vector<CsvField> fields;
  std::size_t count = 0;  // fields in use; the vector keeps its strings between records
  int line = 0;           // line the record starts on
  const CsvField& operator[](std::size_t i) const { return fields[i]; }
  std::size_t size() const { return count; }
};

struct CsvProblem {
  int line = 0;
  int column = 0;
  std::string message;
};

// Bytes from a string or from a stream read 1 MiB at a time, so a sheet of any size is read in
// constant memory. peek(0) and peek(1) are all the CSV grammar needs.
class ByteSource {
 public:
  explicit ByteSource(std::string_view text) : view_(text) {}
  explicit ByteSource(std::istream& in) : in_(&in) {}
  int peek(std::size_t k = 0) {
    if (i_ + k >= view_.size() && !fill(k)) return -1;
    return static_cast<unsigned char>(view_[i_ + k]);
  }
  // The bytes read ahead from here on: empty only at the end of the input.
  std::string_view buffered() {
    if (i_ >= view_.size() && !fill(0)) return {};
    return view_.substr(i_);
  }
  void skip(std::size_t n = 1) { i_ += n; }
  bool failed() const { return in_ && in_->bad(); }

 private:
  bool fill(std::size_t k) {
    if (!in_ || !*in_) return false;
    storage_.erase(0, i_);
    i_ = 0;
    constexpr std::size_t kChunk = 1 << 20;
    while (storage_.size() <= k && *in_) {
      const std::size_t old = storage_.size();
      storage_.resize(old + kChunk);
      in_->read(storage_.data() + old, static_cast<std::streamsize>(kChunk));
      storage_.resize(old + static_cast<std::size_t>(in_->gcount()));
    }
    view_ = storage_;
    return k < storage_.size();
  }
  std::string_view view_;
  std::string storage_;
  std::istream* in_ = nullptr;
  std::size_t i_ = 0;
};

// Comma-separated, '"'-quoted fields with '""' for a quote inside, records ended by LF or CRLF
// (also inside quotes, where the line break is part of the field). Blank lines are skipped.
class CsvReader {
 public:
  explicit CsvReader(ByteSource& src) : src_(src) {
    if (src_.peek(0) == 0xEF && src_.peek(1) == 0xBB) {  // UTF-8 byte order mark
      src_.skip(2);
      if (src_.peek(0) == 0xBF) src_.skip();
    }
  }

  // The next record; false at the end of the input or on a problem (problem() is then set).
  bool next(CsvRecord& rec) {
    rec.count = 0;
    while (src_.peek() == '\n' || (src_.peek() == '\r' && src_.peek(1) == '\n')) {
      src_.skip(src_.peek() == '\r' ? 2 : 1);
      new_line();
    }
    if (src_.peek() < 0 || problem_) return false;
    rec.line = line_;
    for (;;) {
      if (rec.count >= kMaxSkypilotFields)
        return fail(line_, column_, "more than " + std::to_string(kMaxSkypilotFields) + " fields in one record");
      if (rec.fields.size() == rec.count) rec.fields.emplace_back();
      CsvField& f = rec.fields[rec.count++];
      f.text.clear();
      f.line = line_;
      f.column = column_;
      if (src_.peek() == '"') {
        if (!quoted(f.text)) return false;
      } else if (!unquoted(f.text)) {
        return false;
      }
      const int c = src_.peek();
      if (c < 0) return true;
      if (c == ',') {
        advance();
        continue;
      }
      src_.skip(c == '\r' ? 2 : 1);
      new_line();
      return true;
    }
  }

  const std::optional<CsvProblem>& problem() const { return problem_; }

 private:
  void advance() {
    src_.skip();
    ++column_;
  }
  void new_line() {
    ++line_;
    column_ = 1;
  }
  bool fail(int line, int column, std::string message) {
    problem_ = CsvProblem{line, column, std::move(message)};
    return false;
  }
  // Appends the bytes before the next one `stop` accepts (or before the end of the input), a
  // buffered run at a time: most bytes of a sheet are in such runs, and this is where a
  // million-row sheet's scan spends its time.
  template <class Stop>
  void copy_run(std::string& out, Stop stop) {
    for (;;) {
      const std::string_view rest = src_.buffered();
      std::size_t n = 0;
      while (n < rest.size() && !stop(rest[n])) ++n;
      out.append(rest.data(), n);
      src_.skip(n);
      column_ += static_cast<int>(n);
      if (n < rest.size() || rest.empty()) return;
    }
  }
  bool unquoted(std::string& out) {
    copy_run(out, [](char c) { return c == ',' || c == '\n' || c == '\r' || c == '"'; });
    for (int c; (c = src_.peek()) >= 0 && c != ',' && c != '\n'; advance()) {
      if (c == '\r' && src_.peek(1) != '\n') return fail(line_, column_, "carriage return not followed by a line feed");
      if (c == '\r') break;
      if (c == '"') return fail(line_, column_, "'\"' inside an unquoted field (quote the field and double the '\"')");
      out.push_back(static_cast<char>(c));
    }
    return true;
  }
  // At an opening quote: reads through the closing one.
  bool quoted(std::string& out) {
    const int open_line = line_, open_column = column_;
    advance();
    for (;;) {
      copy_run(out, [](char c) { return c == '"' || c == '\n'; });
      const int c = src_.peek();
      if (c < 0) return fail(open_line, open_column, "unterminated quoted field (the '\"' opened here is never closed)");
      advance();
      if (c == '"' && src_.peek() == '"') {
        out.push_back('"');
        advance();
      } else if (c == '"') {
        break;
      } else {
        out.push_back(static_cast<char>(c));
        if (c == '\n') new_line();
      }
    }
    const int after = src_.peek();
    if (after >= 0 && after != ',' && after != '\n' && !(after == '\r' && src_.peek(1) == '\n'))
      return fail(line_, column_, "unexpected character after a closing '\"'");
    return true;
  }

  ByteSource& src_;
  int line_ = 1;
  int column_ = 1;
  std::optional<CsvProblem> problem_;
};

// ---------------------------------------------------------------- values

// A value for a message: at most 40 characters, control bytes shown as '?'.
std::string shown(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < 40; ++i)
    out.push_back(std::isprint(static_cast<unsigned char>(s[i])) ? s[i] : '?');
  return out + (s.size() > 40 ? "...\"" : "\"");
}

// Plain decimal numbers only: std::from_chars would also take "inf", "nan" and "infinity".
std::optional<double> plain_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != 'e' && c != 'E' && c != '+')
      return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// ---------------------------------------------------------------- GPU names

// SkyPilot's own vocabulary where a name is ambiguous in ours: `sky show-gpus -a` lists "V100"
// and "V100-32GB" apart and the AWS catalog names its 32 GB rows "V100-32GB"
// (shared/reference/cost_notes.md 1.4), so a bare "V100" is the 16 GB part (Lambda's and OCI's
// V100 rows report 16384 MiB per GPU in GpuInfo). Used only to choose among the candidates the
// catalog's own lookup offers.
constexpr std::pair<const char*, const char*> kSkypilotNames[] = {{"V100", "v100-16gb"}};

bool is_pcie(const Gpu& g) { return g.interconnect_kind.rfind("pcie", 0) == 0; }

struct Resolved {
  std::string gpu;                     // canonical id, "" when unmapped
  std::vector<std::string> ambiguous;  // candidates when the name fits several GPUs
};

// 'p' when the text says PCIe, 's' when it says SXM or NVLink, '-' when neither or both.
// Called for every row, so it searches in place instead of lowering copies.
bool contains_word(std::string_view text, std::string_view lower_word) {
  if (text.size() < lower_word.size()) return false;
  for (std::size_t i = 0; i + lower_word.size() <= text.size(); ++i) {
    std::size_t k = 0;
    while (k < lower_word.size() && std::tolower(static_cast<unsigned char>(text[i + k])) == lower_word[k]) ++k;
    if (k == lower_word.size()) return true;
  }
  return false;
}

char form_hint(const std::string& instance_type, const std::string& name) {
  auto says = [&](std::string_view w) { return contains_word(instance_type, w) || contains_word(name, w); };
  const bool pcie = says("pcie");
  const bool sxm = says("sxm") || says("nvlink");
  return pcie == sxm ? '-' : pcie ? 'p' : 's';
}

// AcceleratorName -> catalog GPU. Where the catalog holds a PCIe and an SXM form of the same
// chip and memory (H100, A100), the form hint from the instance type picks one.
Resolved resolve_gpu(const Catalog& known, const std::string& name, char hint) {
  Resolved out;
  const Lookup<Gpu> hit = known.find_gpu(name);
  const Gpu* g = hit.found;
  if (!g && !hit.ambiguous.empty()) {
    for (const auto& [sky, id] : kSkypilotNames)
      if (normalise_name(sky) == normalise_name(name) &&
          std::find(hit.ambiguous.begin(), hit.ambiguous.end(), id) != hit.ambiguous.end())
        g = known.find_gpu(id).found;
    if (!g) out.ambiguous = hit.ambiguous;
  }
  if (!g) return out;
  const bool says_pcie = hint == 'p';
  if (hint != '-' && says_pcie != is_pcie(*g)) {
    const Gpu* sibling = nullptr;
    int count = 0;
    for (const auto& o : known.gpus)
      if (o.id != g->id && o.vendor == g->vendor && o.architecture == g->architecture &&
          o.memory_bytes == g->memory_bytes && is_pcie(o) == says_pcie) {
        sibling = &o;
        ++count;
      }
    if (count == 1) g = sibling;
  }
  out.gpu = g->id;
  return out;
}

// ---------------------------------------------------------------- GCP host + accelerator

// GCP's sheet prices a GPU VM in two rows: the host machine type (empty AcceleratorName) and its
// accelerators (empty InstanceType), because GCP bills them as two SKUs. The accelerator-optimised
// families come with a fixed GPU model and count (cloud.google.com/compute/docs/accelerator-optimized-machines:
// A2 Standard = A100 40GB, A2 Ultra = A100 80GB, A3 High/Edge = H100 80GB, A3 Mega = H100 Mega,
// A3 Ultra = H200, A4 = B200; cloud.google.com/compute/docs/gpus: G2 = L4, g2-standard-24 has 2,
// -48 has 4, -96 has 8, the others 1). Names are SkyPilot's AcceleratorName vocabulary.
// N1 hosts take T4/V100/P100/P4 in any count, so no host row is theirs alone: those are reported.
struct GpuHost {
  const char* prefix;
  const char* accelerator;
  int count;  // 0: the count is the "<N>g" right after the prefix
};
constexpr GpuHost kGpuHosts[] = {
    {"a2-highgpu-", "A100", 0},        {"a2-megagpu-16g", "A100", 16},     {"a2-ultragpu-", "A100-80GB", 0},
    {"a3-highgpu-", "H100", 0},        {"a3-edgegpu-8g", "H100", 8},       {"a3-megagpu-8g", "H100-MEGA", 8},
    {"a3-ultragpu-8g", "H200", 8},     {"a4-highgpu-8g", "B200", 8},       {"g2-standard-4", "L4", 1},
    {"g2-standard-8", "L4", 1},        {"g2-standard-12", "L4", 1},        {"g2-standard-16", "L4", 1},
    {"g2-standard-24", "L4", 2},       {"g2-standard-32", "L4", 1},        {"g2-standard-48", "L4", 4},
    {"g2-standard-96", "L4", 8},
};

// The accelerator a GCP host machine type is billed with, or nullopt for any other type.
std::optional<std::pair<std::string, int>> gpu_host(std::string_view type) {
  for (const auto& h : kGpuHosts) {
    const std::string_view prefix(h.prefix);
    if (type.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = type.substr(prefix.size());
    if (h.count > 0) {
      if (rest.empty() || rest[0] == '-') return std::make_pair(std::string(h.accelerator), h.count);
      continue;  // g2-standard-4 must not match g2-standard-48
    }
    int n = 0;
    std::size_t i = 0;
    for (; i < rest.size() && i < 3 && std::isdigit(static_cast<unsigned char>(rest[i])); ++i) n = n * 10 + (rest[i] - '0');
    if (i > 0 && i < rest.size() && rest[i] == 'g' && n > 0 && (i + 1 == rest.size() || rest[i + 1] == '-'))
      return std::make_pair(std::string(h.accelerator), n);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- rows -> offers

struct Columns {
  int instance_type = -1, accelerator_name = -1, accelerator_count = -1, vcpus = -1, memory_gib = -1, price = -1,
      spot_price = -1, region = -1, zone = -1;
};

constexpr double kMaxPerGpuHour = 1e7;  // the YAML loader's limit
constexpr int kMaxGpusPerInstance = 1024;

// One priced row: an instance's own row, or a GCP host row with its accelerator row added.
struct Priced {
  int line = 0;
  std::string type, name, region;
  int gpus = 0;
  std::optional<double> price, spot, vcpus, ram;
};

// Frees a container's storage (`x = {}` would assign an empty list and keep the capacity).
template <class T>
void release(T& x) {
  T().swap(x);
}

// Asks the kernel to back [p, p + bytes) with 2 MiB pages where whole ones fit: a million-offer
// sheet writes ~480 MB of offers, and at 4 KiB a page that is ~120,000 page faults, a fifth of
// `compare`'s time (this machine runs under a hypervisor, where each fault costs more). Only
// advice: refused or unsupported, the pages stay small.
void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#ifdef MADV_HUGEPAGE  // Linux
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// The offers being gathered, one per InstanceType@Region, from their zones' rows. Each offer is
// built once, in place, in the vector the provider keeps: room for every offer the input can hold
// is reserved from its size before the first row (an upper bound; pages never written are never
// resident), so the offers are neither moved nor held twice. While gathering, the on-demand slot
// holds the lowest instance price; the zones' spot prices wait in one flat list. take() turns
// both into per-GPU prices.
class Gathering {
 public:
  // Room for `n` offers before the first one moves (the index keeps offer numbers, not
  // pointers, so a sheet larger than its estimate still reads correctly, only slower), and an
  // index sized for them, so it is never rebuilt while the sheet is read.
  void reserve(std::size_t n) {
    offers_.reserve(n);
    advise_huge_pages(offers_.data(), offers_.capacity() * sizeof(Offer));
    hashes_.reserve(offers_.capacity());
    name_of_.reserve(offers_.capacity());
    std::size_t slots = slots_.size();
    while (slots < 2 * offers_.capacity()) slots *= 2;
    if (slots > slots_.size()) rehash(slots);
  }

  // The offer with this id, and true when it was just added (the caller fills it in).
  // `accelerator` is the sheet's AcceleratorName, kept for messages (interned: a few per sheet).
  std::pair<std::uint32_t, bool> find_or_add(const std::string& id, const std::string& accelerator) {
    // A sheet lists a region's zones one after another: most rows belong to the previous row's offer.
    if (!offers_.empty() && offers_.back().id == id) return {static_cast<std::uint32_t>(offers_.size() - 1), false};
    if (offers_.size() == offers_.capacity()) reserve(std::max<std::size_t>(512, 2 * offers_.capacity()));
    const std::size_t hash = std::hash<std::string_view>{}(id);
    const std::size_t slot = find_slot(id, hash);
    if (slots_[slot] != kEmpty) return {slots_[slot], false};
    Offer& o = offers_.emplace_back();
    o.id = id;
    name_of_.push_back(&*names_.insert(accelerator).first);
    slots_[slot] = static_cast<std::uint32_t>(offers_.size() - 1);
    hashes_.push_back(hash);
    return {static_cast<std::uint32_t>(offers_.size() - 1), true};
  }
  Offer& at(std::uint32_t i) { return offers_[i]; }
  const std::string& accelerator(std::uint32_t i) const { return *name_of_[i]; }
  void add_spot(std::uint32_t i, double instance_price) { spots_.emplace_back(i, instance_price); }

  // On-demand: the lowest zone price (zones of a region list one price). Spot: the median over
  // the zones, since one zone's spot snapshot can sit far below the rest; the range is kept.
  // Offers with neither are counted in `unpriced` and left out.
  std::vector<Offer> take(std::size_t& unpriced) {
    release(slots_);
    release(hashes_);
    std::sort(spots_.begin(), spots_.end());  // by offer, then price
    for (std::size_t a = 0, b = 0; a < spots_.size(); a = b) {
      while (b < spots_.size() && spots_[b].first == spots_[a].first) ++b;
      Offer& o = at(spots_[a].first);
      const std::size_t n = b - a;
      const double mid = n % 2 ? spots_[a + n / 2].second : (spots_[a + n / 2 - 1].second + spots_[a + n / 2].second) / 2;
      o.per_gpu_hour[static_cast<int>(Pricing::spot)] = mid / o.gpus;
      o.spot_low = spots_[a].second / o.gpus;
      o.spot_high = spots_[b - 1].second / o.gpus;
      o.spot_zones = static_cast<int>(n);
    }
    release(spots_);
    auto unpriced_offer = [](const Offer& o) { return !o.price(Pricing::on_demand) && o.spot_zones == 0; };
    for (Offer& o : offers_) {
      auto& on_demand = o.per_gpu_hour[static_cast<int>(Pricing::on_demand)];
      if (on_demand) *on_demand /= o.gpus;
      if (unpriced_offer(o)) ++unpriced;
    }
    if (unpriced) std::erase_if(offers_, unpriced_offer);
    return std::move(offers_);
  }

 private:
  // The index: open addressing over offer numbers, at most half full (reserve() keeps it at
  // least twice the offers' capacity), each offer's hash kept.
  // A node-based map would cost ~56 bytes an offer; this costs 16.
  static constexpr std::uint32_t kEmpty = 0xffffffff;
  std::size_t find_slot(std::string_view id, std::size_t hash) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i] != kEmpty && (hashes_[slots_[i]] != hash || offers_[slots_[i]].id != id)) i = (i + 1) & mask;
    return i;
  }
  void rehash(std::size_t slots) {
    std::vector<std::uint32_t> old(slots, kEmpty);
    slots_.swap(old);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint32_t k : old) {
      if (k == kEmpty) continue;
      std::size_t i = hashes_[k] & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = k;
    }
  }

  std::vector<Offer> offers_;
  std::vector<std::uint32_t> slots_ = std::vector<std::uint32_t>(1, kEmpty);
  std::vector<std::size_t> hashes_;
  std::vector<std::pair<std::uint32_t, double>> spots_;  // (offer, instance spot price) per zone row
  std::unordered_set<std::string> names_;   // node-based: the pointers below stay valid
  std::vector<const std::string*> name_of_;  // each offer's first AcceleratorName
};

class Parser {
 public:
  // `input_bytes`: the size of the sheet, header included (0 when not known), to reserve its offers.
  Parser(const std::string& path, std::string provider, const Catalog& known, SkypilotCsvLoad& out, std::size_t input_bytes)
      : path_(path), known_(known), out_(out), provider_(std::move(provider)), input_bytes_(input_bytes) {}

  void error(int line, int column, const std::string& field, const std::string& problem) {
    if (stopped_) return;
    if (out_.errors.size() == kMaxSkypilotErrors) {
      out_.errors.emplace_back(SourceLocation{path_, line, column}, "",
                               "more than " + std::to_string(kMaxSkypilotErrors) + " problems; stopping here");
      stopped_ = true;
      return;
    }
    out_.errors.emplace_back(SourceLocation{path_, line, column}, field, problem);
  }
  bool stopped() const { return stopped_; }

  bool header(const CsvRecord& rec) {
    names_.clear();
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < rec.size(); ++i) {
      const std::string& n = rec[i].text;
      names_.push_back(n);
      if (n.empty()) continue;
      if (!seen.emplace(n, static_cast<int>(i)).second) error(rec.line, rec[i].column, n, "column named twice in the header");
    }
    const bool any = seen.count("InstanceType") || seen.count("AcceleratorName") || seen.count("AcceleratorCount") ||
                     seen.count("Price") || seen.count("Region");
    if (!any) {
      error(rec.line, 1, "", "not a SkyPilot vms.csv header (expected columns InstanceType, AcceleratorName, "
                             "AcceleratorCount, Price, Region, ...)");
      return false;
    }
    auto find = [&](const char* name, bool required) {
      auto it = seen.find(name);
      if (it != seen.end()) return it->second;
      if (required) error(rec.line, 1, name, "missing required column (a SkyPilot vms.csv header names it)");
      return -1;
    };
    cols_.instance_type = find("InstanceType", true);
    cols_.accelerator_name = find("AcceleratorName", true);
    cols_.accelerator_count = find("AcceleratorCount", true);
    cols_.price = find("Price", true);
    cols_.region = find("Region", true);
    cols_.spot_price = find("SpotPrice", false);
    cols_.vcpus = find("vCPUs", false);
    cols_.memory_gib = find("MemoryGiB", false);
    cols_.zone = find("AvailabilityZone", false);
    // Each offer has a row of its own with an AcceleratorName, an AcceleratorCount and a Region:
    // at least one byte each plus a separator per field. Rows beyond the limit are refused.
    if (input_bytes_ > 0) gathering_.reserve(std::min(kMaxSkypilotRows, input_bytes_ / (names_.size() + 2) + 1));
    return out_.errors.empty();
  }

  void row(const CsvRecord& rec) {
    if (rec.size() != names_.size()) {
      error(rec.line, 1, "", "expected " + std::to_string(names_.size()) + " fields as in the header, got " +
                                 std::to_string(rec.size()));
      return;
    }
    const std::string& name = text(rec, cols_.accelerator_name);
    const std::string& type = text(rec, cols_.instance_type);
    if (name.empty()) {
      host_row(rec, type);
      return;
    }
    const std::size_t errors_before = out_.errors.size();
    const std::optional<double> count = number(rec, cols_.accelerator_count, true);
    Priced r;
    r.line = rec.line;
    r.price = number(rec, cols_.price, false);
    r.spot = cols_.spot_price >= 0 ? number(rec, cols_.spot_price, false) : std::nullopt;
    r.vcpus = cols_.vcpus >= 0 ? number(rec, cols_.vcpus, false) : std::nullopt;
    r.ram = cols_.memory_gib >= 0 ? number(rec, cols_.memory_gib, false) : std::nullopt;
    const std::string& region = text(rec, cols_.region);
    if (region.empty()) error(rec[cols_.region].line, column(rec, cols_.region), "Region", "expected a region name, got an empty field");
    if (count && *count == 0)
      error(rec[cols_.accelerator_count].line, column(rec, cols_.accelerator_count), "AcceleratorCount", "expected at least 1 GPU, got 0");
    else if (count && *count > kMaxGpusPerInstance)
      error(rec[cols_.accelerator_count].line, column(rec, cols_.accelerator_count), "AcceleratorCount",
            "expected at most " + std::to_string(kMaxGpusPerInstance) + " GPUs, got " + text(rec, cols_.accelerator_count));
    if (out_.errors.size() != errors_before || !count) return;
    if (*count != std::floor(*count)) {  // a GPU partition (Azure's fractional A10 shapes)
      ++fractional_rows_;
      return;
    }
    for (auto* p : {&r.price, &r.spot}) {
      if (*p && **p == 0) {
        ++zero_price_rows_;
        p->reset();
      } else if (*p && **p / *count > kMaxPerGpuHour) {
        const int col = p == &r.price ? cols_.price : cols_.spot_price;
        error(rec[col].line, column(rec, col), p == &r.price ? "Price" : "SpotPrice", "more than 1e7 USD per GPU-hour");
        return;
      }
    }
    r.gpus = static_cast<int>(*count);
    r.name = name;
    r.region = region;
    if (type.empty()) {  // GCP: an accelerator's price alone, added to its host's row at the end
      const std::string key = accelerator_key(name, r.gpus, region, zone(rec));
      auto [it, fresh] = accelerators_.emplace(key, Accelerator{r.line, r.price, r.spot, false});
      if (!fresh) {  // a repeated row: keep the lowest prices
        keep_lowest(it->second.price, r.price);
        keep_lowest(it->second.spot, r.spot);
      }
      return;
    }
    r.type = type;
    add(r, rec[cols_.accelerator_name].line, column(rec, cols_.accelerator_name));
  }

  void finish(Provider p) {
    join_hosts();
    std::size_t unpriced = 0;
    p.offers = gathering_.take(unpriced);
    for (const auto& [name, u] : unmapped_) {
      std::string why;
      for (const auto& a : u.ambiguous) why += (why.empty() ? "; ambiguous: " : ", ") + a;
      out_.unmapped.push_back(name + " (" + std::to_string(u.rows) + (u.rows == 1 ? " row" : " rows") + why + ")");
    }
    std::size_t unused = 0;
    for (const auto& [key, a] : accelerators_) unused += a.used ? 0 : 1;
    auto note = [&](std::size_t n, const char* one, const char* many, const char* rest) {
      if (n) out_.skipped.push_back(std::to_string(n) + " " + (n == 1 ? one : many) + rest);
    };
    note(unused, "accelerator-only row", "accelerator-only rows",
         " (empty InstanceType) left out: no host machine type in the sheet is billed with it (GCP N1 hosts take "
         "T4/V100/P100/P4 in any count; choose a host and price it yourself)");
    note(lonely_hosts_, "GPU host row", "GPU host rows", " left out: no accelerator row for the same zone");
    note(fractional_rows_, "row", "rows", " with a fractional AcceleratorCount (a GPU partition) left out");
    note(zero_price_rows_, "price", "prices", " of 0 treated as no price");
    note(unpriced, "offer", "offers", " (InstanceType@Region) left out: neither Price nor SpotPrice in any row");
    if (p.offers.empty()) {
      out_.skipped.push_back("no row gave an offer for a GPU in the catalog; provider '" + p.id + "' not added");
      return;
    }
    out_.catalog.providers.push_back(std::move(p));
  }

 private:
  struct Accelerator {
    int line = 0;
    std::optional<double> price, spot;
    bool used = false;
  };
  struct Host {
    Priced row;
    std::string zone;
  };

  static const std::string& text(const CsvRecord& rec, int col) { return rec[static_cast<std::size_t>(col)].text; }
  static int column(const CsvRecord& rec, int col) { return rec[static_cast<std::size_t>(col)].column; }
  // The zone when the sheet lists one (GCP, AWS, OCI); else the region stands for it.
  std::string zone(const CsvRecord& rec) const {
    return cols_.zone >= 0 && !text(rec, cols_.zone).empty() ? text(rec, cols_.zone) : text(rec, cols_.region);
  }
  static std::string accelerator_key(const std::string& name, int count, const std::string& region, const std::string& zone) {
    return name + '\x1f' + std::to_string(count) + '\x1f' + region + '\x1f' + zone;
  }

  // A row without an accelerator: a CPU-only machine, or a GCP GPU host waiting for its accelerator.
  void host_row(const CsvRecord& rec, const std::string& type) {
    const auto host = gpu_host(type);
    if (!host) {
      ++out_.cpu_only_rows;
      return;
    }
    const std::size_t errors_before = out_.errors.size();
    Host h;
    h.row.line = rec.line;
    h.row.type = type;
    h.row.name = host->first;
    h.row.gpus = host->second;
    h.row.region = text(rec, cols_.region);
    h.row.price = number(rec, cols_.price, false);
    h.row.spot = cols_.spot_price >= 0 ? number(rec, cols_.spot_price, false) : std::nullopt;
    h.row.vcpus = cols_.vcpus >= 0 ? number(rec, cols_.vcpus, false) : std::nullopt;
    h.row.ram = cols_.memory_gib >= 0 ? number(rec, cols_.memory_gib, false) : std::nullopt;
    if (h.row.region.empty()) error(rec[cols_.region].line, column(rec, cols_.region), "Region", "expected a region name, got an empty field");
    if (out_.errors.size() != errors_before) return;
    h.zone = zone(rec);
    hosts_.push_back(std::move(h));
  }

  // Host + accelerator of the same zone = what GCP bills for the VM. A price (or spot price) is
  // known only when both rows give one; a zero host price (A4's rows in the sheet) means unknown.
  void join_hosts() {
    for (auto& h : hosts_) {
      auto it = accelerators_.find(accelerator_key(h.row.name, h.row.gpus, h.row.region, h.zone));
      if (it == accelerators_.end()) {
        ++lonely_hosts_;
        continue;
      }
      it->second.used = true;
      Priced r = h.row;
      auto sum = [](const std::optional<double>& a, const std::optional<double>& b) -> std::optional<double> {
        if (!a || !b || *a == 0 || *b == 0) return std::nullopt;
        return *a + *b;
      };
      r.price = sum(h.row.price, it->second.price);
      r.spot = sum(h.row.spot, it->second.spot);
      add(r, r.line, 1);
    }
    hosts_.clear();
  }

  void add(const Priced& r, int name_line, int name_column) {
    const Resolved& gpu = resolve(r.name, r.type);
    if (gpu.gpu.empty()) {
      Unmapped& u = unmapped_[r.name];
      ++u.rows;
      u.ambiguous = gpu.ambiguous;
      return;
    }
    std::string& id = key_;  // reused: one allocation per sheet, not per row
    id.assign(r.type).append(1, '@').append(r.region);
    const auto [i, fresh] = gathering_.find_or_add(id, r.name);
    Offer& o = gathering_.at(i);
    if (fresh) {
      o.provider = provider_;
      o.gpu = gpu.gpu;
      o.gpus = r.gpus;
      o.region = r.region;
      o.where = SourceLocation{path_, r.line, 1};
      // Informational only: a fractional or zero figure is left out rather than rounded.
      const double cpus = r.vcpus.value_or(0), gib = r.ram.value_or(0);
      if (cpus >= 1 && cpus <= (1 << 20) && cpus == std::floor(cpus)) o.vcpus = static_cast<int>(cpus);
      if (gib > 0 && gib <= 1e7) o.ram_gib = gib;
    } else if (o.gpu != gpu.gpu || o.gpus != r.gpus) {
      error(name_line, name_column, "AcceleratorName",
            "row says " + std::to_string(r.gpus) + "x " + r.name + " but line " + std::to_string(o.where.line) + " says " +
                std::to_string(o.gpus) + "x " + gathering_.accelerator(i) + " for " + id);
      return;
    }
    keep_lowest(o.per_gpu_hour[static_cast<int>(Pricing::on_demand)], r.price);  // per instance until take()
    if (r.spot) gathering_.add_spot(i, *r.spot);
  }

  // Empty -> nullopt (an error when required); otherwise a finite number >= 0 or an error.
  std::optional<double> number(const CsvRecord& rec, int col, bool required) {
    const std::string& s = text(rec, col);
    const std::string& field = names_[static_cast<std::size_t>(col)];
    const int line = rec[static_cast<std::size_t>(col)].line;
    if (s.empty()) {
      if (required) error(line, column(rec, col), field, "expected a number, got an empty field");
      return std::nullopt;
    }
    const auto v = plain_number(s);
    if (!v) error(line, column(rec, col), field, "expected a finite plain decimal number, got " + shown(s));
    else if (*v < 0) error(line, column(rec, col), field, "expected a number at least 0, got " + shown(s));
    else return v;
    return std::nullopt;
  }

  // The instance type matters only through the PCIe/SXM hint, so cache on the name and the hint.
  // Rows come grouped by instance type, so the previous row's answer is usually this one's.
  const Resolved& resolve(const std::string& name, const std::string& type) {
    if (last_resolved_ && name == last_name_ && type == last_type_) return *last_resolved_;
    const char hint = form_hint(type, name);
    auto it = resolved_.find({name, hint});
    if (it == resolved_.end()) it = resolved_.emplace(std::make_pair(name, hint), resolve_gpu(known_, name, hint)).first;
    last_name_ = name;
    last_type_ = type;
    last_resolved_ = &it->second;  // a map's entries stay put
    return it->second;
  }

  static void keep_lowest(std::optional<double>& slot, const std::optional<double>& v) {
    if (v && (!slot || *v < *slot)) slot = v;
  }

  const std::string& path_;
  const Catalog& known_;
  SkypilotCsvLoad& out_;
  bool stopped_ = false;
  std::vector<std::string> names_;
  Columns cols_;
  std::string provider_;
  Gathering gathering_;
  std::string key_;
  std::map<std::pair<std::string, char>, Resolved> resolved_;
  std::string last_name_, last_type_;
  const Resolved* last_resolved_ = nullptr;
  std::unordered_map<std::string, Accelerator> accelerators_;
  std::vector<Host> hosts_;
  struct Unmapped {
    std::size_t rows = 0;
    std::vector<std::string> ambiguous;
  };
  std::map<std::string, Unmapped> unmapped_;
  std::size_t fractional_rows_ = 0, zero_price_rows_ = 0, lonely_hosts_ = 0;
  std::size_t input_bytes_ = 0;
};

}  // namespace

bool looks_like_skypilot_csv(const std::string& text) {
  ByteSource src(std::string_view(text).substr(0, std::min<std::size_t>(text.size(), 64 * 1024)));
  CsvReader reader(src);
  CsvRecord rec;
  if (!reader.next(rec)) return false;
  int found = 0;
  for (std::size_t i = 0; i < rec.size(); ++i)
    for (const char* want : {"InstanceType", "AcceleratorName", "AcceleratorCount", "Price"})
      if (rec[i].text == want) ++found;
  return found >= 4;
}

std::string skypilot_provider_id(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::string raw;
  if (lower(p.filename().string()) == "vms.csv") {
    std::error_code ec;
    fs::path dir = p.parent_path();
    if (dir.empty() || dir.filename() == "." || dir.filename() == "..")
      dir = fs::absolute(p, ec).lexically_normal().parent_path();
    raw = dir.filename().string();
  } else {
    raw = p.stem().string();
    const std::string l = lower(raw);
    if (l.size() > 4 && (l.ends_with("_vms") || l.ends_with("-vms"))) raw.resize(raw.size() - 4);
  }
  std::string id;
  for (char c : lower(raw)) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    if (id.empty() && !std::isalnum(static_cast<unsigned char>(c))) continue;
    id.push_back(ok && static_cast<unsigned char>(c) < 0x80 ? c : '-');
  }
  return id.empty() ? "skypilot" : id;
}

namespace {

SkypilotCsvLoad parse_source(ByteSource& src, const std::string& path, const Catalog& known, std::size_t bytes) {
  SkypilotCsvLoad out;
  Parser parser(path, skypilot_provider_id(path), known, out, bytes);
  CsvReader reader(src);
  CsvRecord rec;
  if (!reader.next(rec)) {
    if (const auto& p = reader.problem()) parser.error(p->line, p->column, "", p->message);
    else parser.error(1, 1, "", "empty file (expected a SkyPilot vms.csv header: InstanceType,AcceleratorName,...)");
    return out;
  }
  if (!parser.header(rec)) return out;
  std::size_t rows = 0;
  while (!parser.stopped() && reader.next(rec)) {
    if (++rows > kMaxSkypilotRows) {
      parser.error(rec.line, 1, "", "more than " + std::to_string(kMaxSkypilotRows) + " data rows (the limit for a price sheet)");
      return out;
    }
    parser.row(rec);
  }
  if (const auto& p = reader.problem()) parser.error(p->line, p->column, "", p->message);
  if (src.failed()) parser.error(rec.line, 1, "", "read error");
  if (rows == 0 && out.errors.empty()) parser.error(rec.line, 1, "", "no data rows after the header");
  if (!out.errors.empty()) return out;

  Provider p;
  p.id = skypilot_provider_id(path);
  p.name = p.id + " (SkyPilot catalog)";
  p.currency = "USD";          // SkyPilot catalogs price everything in USD
  p.prices_as_of = "unknown";  // a vms.csv carries no date
  p.tax_basis = TaxBasis::exclusive;  // cloud list prices are before tax
  p.source = path;
  p.where = SourceLocation{path, 1, 1};
  // Billing terms belong to the cloud, not to the price sheet: keep those of a provider already
  // loaded under the same id (the shipped sheet, whose terms are sourced); else per second.
  const auto prev = std::find_if(known.providers.begin(), known.providers.end(),
                                 [&](const Provider& k) { return k.id == p.id; });
  if (prev != known.providers.end()) {
    p.billing_increment_seconds = prev->billing_increment_seconds;
    p.minimum_billed_seconds = prev->minimum_billed_seconds;
    p.startup_seconds = prev->startup_seconds;
    p.tax_rate = prev->tax_rate;
  }
  parser.finish(std::move(p));
  return out;
}

// The bytes from the stream's position to its end when it can seek (a file); else 0.
std::size_t bytes_left(std::istream& in) {
  if (!in) return 0;
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1) || !in.seekg(0, std::ios::end)) {
    in.clear();
    return 0;
  }
  const std::istream::pos_type end = in.tellg();
  in.seekg(here);
  if (!in || end == std::istream::pos_type(-1)) {
    in.clear();
    in.seekg(here);
    return 0;
  }
  return end > here ? static_cast<std::size_t>(end - here) : 0;
}

}  // namespace

SkypilotCsvLoad parse_skypilot_csv(const std::string& text, const std::string& path, const Catalog& known) {
  ByteSource src{std::string_view(text)};
  return parse_source(src, path, known, text.size());
}

SkypilotCsvLoad parse_skypilot_csv(std::istream& in, const std::string& path, const Catalog& known) {
  const std::size_t bytes = bytes_left(in);
  ByteSource src(in);
  return parse_source(src, path, known, bytes);
}

SkypilotCsvLoad parse_skypilot_csv_file(const std::string& path, const Catalog& known) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError({path, 0, 0}, "", "cannot open file: no such file");
  if (!std::filesystem::is_regular_file(status)) throw InputError({path, 0, 0}, "", "not a regular file");
  std::ifstream in(path, std::ios::binary);
  note_input_path(path);
  if (!in) throw InputError({path, 0, 0}, "", "cannot open file");
  return parse_skypilot_csv(in, path, known);
}

}  // namespace gpuplan::io

#include "io/skypilot_csv.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>

#include "gpuplan/name_match.hpp"

namespace gpuplan::io {
namespace {

// ---------------------------------------------------------------- RFC 4180 reader

struct CsvField {
  std::string text;
  int column = 0;  // 1-based byte column where the field starts
};

struct CsvRecord {
  std::vector<CsvField> fields;
  int line = 0;  // line the record starts on
};

struct CsvProblem {
  int line = 0;
  int column = 0;
  std::string message;
};

// Comma-separated, '"'-quoted fields with '""' for a quote inside, records ended by LF or CRLF
// (also inside quotes, where the line break is part of the field). Blank lines are skipped.
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;  // UTF-8 byte order mark
  }

  // The next record; false at the end of the input or on a problem (problem() is then set).
  bool next(CsvRecord& rec) {
    rec.fields.clear();
    while (pos_ < text_.size() && (text_[pos_] == '\n' || (text_[pos_] == '\r' && at(pos_ + 1) == '\n'))) {
      pos_ += text_[pos_] == '\r' ? 2 : 1;
      new_line();
    }
    if (pos_ >= text_.size() || problem_) return false;
    rec.line = line_;
    for (;;) {
      if (rec.fields.size() >= kMaxSkypilotFields)
        return fail(line_, column(), "more than " + std::to_string(kMaxSkypilotFields) + " fields in one record");
      CsvField f;
      f.column = column();
      if (at(pos_) == '"') {
        if (!quoted(f.text)) return false;
      } else {
        for (char c; pos_ < text_.size() && (c = text_[pos_]) != ',' && c != '\n'; ++pos_) {
          if (c == '\r' && at(pos_ + 1) != '\n')
            return fail(line_, column(), "carriage return not followed by a line feed");
          if (c == '\r') break;
          if (c == '"')
            return fail(line_, column(), "'\"' inside an unquoted field (quote the field and double the '\"')");
          f.text.push_back(c);
        }
      }
      rec.fields.push_back(std::move(f));
      if (pos_ >= text_.size()) return true;
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      pos_ += text_[pos_] == '\r' ? 2 : 1;
      new_line();
      return true;
    }
  }

  const std::optional<CsvProblem>& problem() const { return problem_; }

 private:
  char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  int column() const { return static_cast<int>(pos_ - line_start_) + 1; }
  void new_line() {
    ++line_;
    line_start_ = pos_;
  }
  bool fail(int line, int column, std::string message) {
    problem_ = CsvProblem{line, column, std::move(message)};
    return false;
  }
  // At an opening quote: reads through the closing one.
  bool quoted(std::string& out) {
    const int open_line = line_, open_column = column();
    ++pos_;
    for (;;) {
      if (pos_ >= text_.size())
        return fail(open_line, open_column, "unterminated quoted field (the '\"' opened here is never closed)");
      const char c = text_[pos_++];
      if (c == '"' && at(pos_) == '"') {
        out.push_back('"');
        ++pos_;
      } else if (c == '"') {
        break;
      } else {
        out.push_back(c);
        if (c == '\n') new_line();
      }
    }
    const char after = at(pos_);
    if (pos_ < text_.size() && after != ',' && after != '\n' && !(after == '\r' && at(pos_ + 1) == '\n'))
      return fail(line_, column(), "unexpected character after a closing '\"'");
    return true;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
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
char form_hint(const std::string& instance_type, const std::string& name) {
  const std::string t = lower(instance_type + " " + name);
  const bool pcie = t.find("pcie") != std::string::npos;
  const bool sxm = t.find("sxm") != std::string::npos || t.find("nvlink") != std::string::npos;
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

// ---------------------------------------------------------------- rows -> offers

struct Columns {
  int instance_type = -1, accelerator_name = -1, accelerator_count = -1, vcpus = -1, memory_gib = -1, price = -1,
      spot_price = -1, region = -1;
};

constexpr double kMaxPerGpuHour = 1e7;  // the YAML loader's limit
constexpr int kMaxGpusPerInstance = 1024;

class Parser {
 public:
  Parser(const std::string& path, const Catalog& known, SkypilotCsvLoad& out) : path_(path), known_(known), out_(out) {}

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
    for (std::size_t i = 0; i < rec.fields.size(); ++i) {
      const std::string& n = rec.fields[i].text;
      names_.push_back(n);
      if (n.empty()) continue;
      if (!seen.emplace(n, static_cast<int>(i)).second)
        error(rec.line, rec.fields[i].column, n, "column named twice in the header");
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
    return out_.errors.empty();
  }

  void row(const CsvRecord& rec) {
    if (rec.fields.size() != names_.size()) {
      error(rec.line, 1, "", "expected " + std::to_string(names_.size()) + " fields as in the header, got " +
                                 std::to_string(rec.fields.size()));
      return;
    }
    const std::string& name = text(rec, cols_.accelerator_name);
    if (name.empty()) {
      ++out_.cpu_only_rows;
      return;
    }
    const std::string& type = text(rec, cols_.instance_type);
    const std::size_t errors_before = out_.errors.size();
    const std::optional<double> count = number(rec, cols_.accelerator_count, true);
    std::optional<double> price = number(rec, cols_.price, false);
    std::optional<double> spot = cols_.spot_price >= 0 ? number(rec, cols_.spot_price, false) : std::nullopt;
    const std::optional<double> vcpus = cols_.vcpus >= 0 ? number(rec, cols_.vcpus, false) : std::nullopt;
    const std::optional<double> ram = cols_.memory_gib >= 0 ? number(rec, cols_.memory_gib, false) : std::nullopt;
    const std::string& region = text(rec, cols_.region);
    if (region.empty())
      error(rec.line, column(rec, cols_.region), "Region", "expected a region name, got an empty field");
    if (count && *count == 0)
      error(rec.line, column(rec, cols_.accelerator_count), "AcceleratorCount", "expected at least 1 GPU, got 0");
    else if (count && *count > kMaxGpusPerInstance)
      error(rec.line, column(rec, cols_.accelerator_count), "AcceleratorCount",
            "expected at most " + std::to_string(kMaxGpusPerInstance) + " GPUs, got " +
                text(rec, cols_.accelerator_count));
    if (out_.errors.size() != errors_before || !count) return;
    if (type.empty()) {  // GCP: an accelerator's price alone, to be added to a host VM row
      ++accelerator_only_rows_;
      return;
    }
    if (*count != std::floor(*count)) {  // a GPU partition (Azure's fractional A10 shapes)
      ++fractional_rows_;
      return;
    }
    const int gpus = static_cast<int>(*count);
    for (auto* p : {&price, &spot}) {
      if (*p && **p == 0) {
        ++zero_price_rows_;
        p->reset();
      } else if (*p && **p / gpus > kMaxPerGpuHour) {
        const int col = column(rec, p == &price ? cols_.price : cols_.spot_price);
        error(rec.line, col, p == &price ? "Price" : "SpotPrice", "more than 1e7 USD per GPU-hour");
        return;
      }
    }
    const Resolved& gpu = resolve(name, type);
    if (gpu.gpu.empty()) {
      Unmapped& u = unmapped_[name];
      ++u.rows;
      u.ambiguous = gpu.ambiguous;
      return;
    }
    const std::string id = type + "@" + region;
    auto [it, fresh] = index_.emplace(id, offers_.size());
    if (fresh) {
      Offer o;
      o.id = id;
      o.gpu = gpu.gpu;
      o.gpus = gpus;
      o.region = region;
      // Informational only: a fractional or zero figure is left out rather than rounded.
      const double cpus = vcpus.value_or(0), gib = ram.value_or(0);
      if (cpus >= 1 && cpus <= (1 << 20) && cpus == std::floor(cpus)) o.vcpus = static_cast<int>(cpus);
      if (gib > 0 && gib <= 1e7) o.ram_gib = gib;
      o.where = SourceLocation{path_, rec.line, 1};
      offers_.push_back(std::move(o));
      names_by_offer_.push_back(name);
    }
    Offer& o = offers_[it->second];
    if (!fresh && (names_by_offer_[it->second] != name || o.gpus != gpus)) {
      error(rec.line, column(rec, cols_.accelerator_name), "AcceleratorName",
            "row says " + std::to_string(gpus) + "x " + name + " but line " + std::to_string(o.where.line) +
                " says " + std::to_string(o.gpus) + "x " + names_by_offer_[it->second] + " for " + id);
      return;
    }
    keep_lowest(o.per_gpu_hour[static_cast<int>(Pricing::on_demand)], price, gpus);
    keep_lowest(o.per_gpu_hour[static_cast<int>(Pricing::spot)], spot, gpus);
  }

  void finish(Provider p) {
    std::size_t unpriced = 0;
    for (auto& o : offers_) {
      if (!o.price(Pricing::on_demand) && !o.price(Pricing::spot)) {
        ++unpriced;
        continue;
      }
      o.provider = p.id;
      p.offers.push_back(std::move(o));
    }
    for (const auto& [name, u] : unmapped_) {
      std::string why;
      for (const auto& a : u.ambiguous) why += (why.empty() ? "; ambiguous: " : ", ") + a;
      out_.unmapped.push_back(name + " (" + std::to_string(u.rows) + (u.rows == 1 ? " row" : " rows") + why + ")");
    }
    auto note = [&](std::size_t n, const char* one, const char* many, const char* rest) {
      if (n) out_.skipped.push_back(std::to_string(n) + " " + (n == 1 ? one : many) + rest);
    };
    note(accelerator_only_rows_, "accelerator-only row", "accelerator-only rows",
         " (empty InstanceType) left out: the price excludes the host VM");
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
  static const std::string& text(const CsvRecord& rec, int col) {
    return rec.fields[static_cast<std::size_t>(col)].text;
  }
  static int column(const CsvRecord& rec, int col) { return rec.fields[static_cast<std::size_t>(col)].column; }

  // Empty -> nullopt (an error when required); otherwise a finite number >= 0 or an error.
  std::optional<double> number(const CsvRecord& rec, int col, bool required) {
    const std::string& s = text(rec, col);
    const std::string& field = names_[static_cast<std::size_t>(col)];
    if (s.empty()) {
      if (required) error(rec.line, column(rec, col), field, "expected a number, got an empty field");
      return std::nullopt;
    }
    const auto v = plain_number(s);
    if (!v) error(rec.line, column(rec, col), field, "expected a finite plain decimal number, got " + shown(s));
    else if (*v < 0) error(rec.line, column(rec, col), field, "expected a number at least 0, got " + shown(s));
    else return v;
    return std::nullopt;
  }

  // The instance type matters only through the PCIe/SXM hint, so cache on the name and the hint.
  const Resolved& resolve(const std::string& name, const std::string& type) {
    const char hint = form_hint(type, name);
    auto it = resolved_.find({name, hint});
    if (it == resolved_.end())
      it = resolved_.emplace(std::make_pair(name, hint), resolve_gpu(known_, name, hint)).first;
    return it->second;
  }

  static void keep_lowest(std::optional<double>& slot, const std::optional<double>& instance_price, int gpus) {
    if (!instance_price) return;
    const double per_gpu = *instance_price / gpus;
    if (!slot || per_gpu < *slot) slot = per_gpu;
  }

  const std::string& path_;
  const Catalog& known_;
  SkypilotCsvLoad& out_;
  bool stopped_ = false;
  std::vector<std::string> names_;
  Columns cols_;
  std::vector<Offer> offers_;
  std::vector<std::string> names_by_offer_;
  std::map<std::string, std::size_t> index_;
  std::map<std::pair<std::string, char>, Resolved> resolved_;
  struct Unmapped {
    std::size_t rows = 0;
    std::vector<std::string> ambiguous;
  };
  std::map<std::string, Unmapped> unmapped_;
  std::size_t accelerator_only_rows_ = 0, fractional_rows_ = 0, zero_price_rows_ = 0;
};

}  // namespace

bool looks_like_skypilot_csv(const std::string& text) {
  CsvReader reader(std::string_view(text).substr(0, std::min<std::size_t>(text.size(), 64 * 1024)));
  CsvRecord rec;
  if (!reader.next(rec)) return false;
  int found = 0;
  for (const auto& f : rec.fields)
    for (const char* want : {"InstanceType", "AcceleratorName", "AcceleratorCount", "Price"})
      if (f.text == want) ++found;
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

SkypilotCsvLoad parse_skypilot_csv(const std::string& text, const std::string& path, const Catalog& known) {
  SkypilotCsvLoad out;
  Parser parser(path, known, out);
  CsvReader reader(text);
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
      parser.error(rec.line, 1, "",
                   "more than " + std::to_string(kMaxSkypilotRows) + " data rows (the limit for a price sheet)");
      return out;
    }
    parser.row(rec);
  }
  if (const auto& p = reader.problem()) parser.error(p->line, p->column, "", p->message);
  if (rows == 0 && out.errors.empty()) parser.error(rec.line, 1, "", "no data rows after the header");
  if (!out.errors.empty()) return out;

  Provider p;
  p.id = skypilot_provider_id(path);
  p.name = p.id + " (SkyPilot catalog)";
  p.currency = "USD";          // SkyPilot catalogs price everything in USD
  p.prices_as_of = "unknown";  // a vms.csv carries no date
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
  }
  parser.finish(std::move(p));
  return out;
}

}  // namespace gpuplan::io

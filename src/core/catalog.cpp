#include "gpuplan/catalog.hpp"

#include <algorithm>

#include "gpuplan/name_match.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

const char* to_string(PeakPrecision p) {
  switch (p) {
    case PeakPrecision::fp32: return "fp32";
    case PeakPrecision::tf32: return "tf32";
    case PeakPrecision::fp16: return "fp16";
    case PeakPrecision::bf16: return "bf16";
    case PeakPrecision::fp8: return "fp8";
    case PeakPrecision::int8: return "int8";
  }
  return "?";
}

std::optional<PeakPrecision> peak_precision_from_string(const std::string& s) {
  for (int i = 0; i < kPeakPrecisionCount; ++i)
    if (s == to_string(static_cast<PeakPrecision>(i))) return static_cast<PeakPrecision>(i);
  return std::nullopt;
}

const char* to_string(GpuForm f) {
  switch (f) {
    case GpuForm::consumer: return "consumer";
    case GpuForm::workstation: return "workstation";
    case GpuForm::datacentre: return "datacentre";
  }
  return "?";
}

const char* to_string(Pricing p) {
  switch (p) {
    case Pricing::on_demand: return "on-demand";
    case Pricing::spot: return "spot";
    case Pricing::reserved_1y: return "reserved-1y";
    case Pricing::reserved_3y: return "reserved-3y";
  }
  return "?";
}

std::optional<Pricing> pricing_from_string(const std::string& s) {
  for (int i = 0; i < kPricingCount; ++i)
    if (s == to_string(static_cast<Pricing>(i))) return static_cast<Pricing>(i);
  return std::nullopt;
}

template <>
std::optional<Pricing> parse_enum<Pricing>(const std::string& s) {
  return pricing_from_string(s);
}
template <>
std::string enum_choices<Pricing>() {
  std::string out;
  for (int i = 0; i < kPricingCount; ++i) out += (i ? ", " : "") + std::string(to_string(static_cast<Pricing>(i)));
  return out;
}

std::optional<double> FxTable::convert(double amount, const std::string& from, const std::string& to) const {
  if (from == to) return amount;
  auto rate = [&](const std::string& c) -> std::optional<double> {
    if (c == base) return 1.0;
    auto it = per_base.find(c);
    if (it == per_base.end()) return std::nullopt;
    return it->second;
  };
  auto rf = rate(from);
  auto rt = rate(to);
  if (!rf || !rt) return std::nullopt;
  return amount / *rf * *rt;
}

namespace {

template <class T>
void merge_by_id(std::vector<T>& into, std::vector<T>& later) {
  for (auto& item : later) {
    auto it = std::find_if(into.begin(), into.end(), [&](const T& x) { return x.id == item.id; });
    if (it != into.end()) *it = std::move(item);
    else into.push_back(std::move(item));
  }
}

// Ids match exactly after normalisation; aliases match too, and an alias shared by several
// entries is ambiguous rather than silently resolved to the first.
template <class T, class NamesOf>
Lookup<T> find_named(const std::vector<T>& items, const std::string& typed, NamesOf names_of) {
  Lookup<T> out;
  const std::string key = normalise_name(typed);
  for (const auto& item : items)
    if (normalises_to(item.id, key)) {
      out.found = &item;
      return out;
    }
  std::vector<const T*> hits;
  for (const auto& item : items)
    for (const auto& n : names_of(item))
      if (normalises_to(n, key)) {
        hits.push_back(&item);
        break;
      }
  if (hits.size() == 1) {
    out.found = hits.front();
    return out;
  }
  if (hits.size() > 1) {
    for (const T* h : hits) out.ambiguous.push_back(h->id);
    return out;
  }
  std::vector<std::string> all;
  for (const auto& item : items) {
    all.push_back(item.id);
    for (const auto& n : names_of(item)) all.push_back(n);
  }
  std::string best = closest_name(typed, all);
  // Suggest the canonical id behind an alias.
  for (const auto& item : items) {
    if (item.id == best) break;
    bool is_alias = false;
    for (const auto& n : names_of(item)) is_alias = is_alias || n == best;
    if (is_alias) {
      best = item.id;
      break;
    }
  }
  out.suggestion = best;
  return out;
}

}  // namespace

void Catalog::merge(Catalog later) {
  merge_by_id(gpus, later.gpus);
  merge_by_id(models, later.models);
  merge_by_id(providers, later.providers);
  if (!later.fx.per_base.empty() || !later.fx.as_of.empty()) {
    for (auto& [k, v] : later.fx.per_base) fx.per_base[k] = v;
    if (!later.fx.as_of.empty()) fx.as_of = later.fx.as_of;
    fx.where = later.fx.where;
  }
}

Lookup<Gpu> Catalog::find_gpu(const std::string& name) const {
  return find_named(gpus, name, [](const Gpu& g) {
    std::vector<std::string> n = g.aliases;
    n.push_back(g.name);
    return n;
  });
}

Lookup<ModelArch> Catalog::find_model(const std::string& name) const {
  const Lookup<ModelArch> hit = find_model_exact(name);
  if (hit.found || !hit.ambiguous.empty()) return hit;
  // An instruct/chat variant has the base model's architecture: "Meta-Llama-3.1-8B-Instruct".
  const std::string base = base_model_name(name);
  if (base.empty() || normalise_name(base) == normalise_name(name)) return hit;
  Lookup<ModelArch> again = find_model_exact(base);
  if (again.found || !again.ambiguous.empty()) return again;
  return hit;
}

Lookup<ModelArch> Catalog::find_model_exact(const std::string& name) const {
  return find_named(models, name, [](const ModelArch& m) {
    std::vector<std::string> n = m.aliases;
    if (!m.hf_id.empty()) {
      n.push_back(m.hf_id);
      // "Llama-3.1-8B" without the organisation prefix
      auto slash = m.hf_id.find('/');
      if (slash != std::string::npos) n.push_back(m.hf_id.substr(slash + 1));
    }
    return n;
  });
}

Lookup<Provider> Catalog::find_provider(const std::string& name) const {
  return find_named(providers, name, [](const Provider& p) { return std::vector<std::string>{p.name}; });
}

std::size_t Catalog::offer_count() const {
  std::size_t n = 0;
  for (const auto& p : providers) n += p.offers.size();
  return n;
}

}  // namespace gpuplan

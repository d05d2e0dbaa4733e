#pragma once
// GPUs, models, provider price sheets and exchange rates as plain values, and the lookups
// that turn what a person typed into one catalog entry.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/error.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// Peak-throughput precisions a spec sheet lists. Order is the JSON/YAML key order.
enum class PeakPrecision { fp32, tf32, fp16, bf16, fp8, int8 };
inline constexpr int kPeakPrecisionCount = 6;
const char* to_string(PeakPrecision p);
std::optional<PeakPrecision> peak_precision_from_string(const std::string& s);

enum class GpuForm { consumer, workstation, datacentre };
const char* to_string(GpuForm f);

struct Gpu {
  std::string id;
  std::string name;
  std::string vendor;        // nvidia | amd | intel
  std::string architecture;  // ampere, hopper, cdna3, ...
  GpuForm form = GpuForm::datacentre;
  std::vector<std::string> aliases;
  std::uint64_t memory_bytes = 0;
  // What a program can allocate: the nominal size less ECC, the driver's reservation and the
  // CUDA context (nvidia-smi's "total" minus what an empty process holds). 0 = not given.
  std::uint64_t usable_memory_bytes = 0;
  double memory_bandwidth_gbps = 0;                 // GB/s (10^9 B/s)
  std::array<double, kPeakPrecisionCount> dense_tflops{};  // 0 = unsupported
  double tdp_watts = 0;
  std::string interconnect_kind;                    // pcie4, nvlink4, infinity-fabric, ...
  double interconnect_gbps = 0;                     // GB/s per GPU, one direction
  bool ecc = false;
  std::optional<double> price_usd;                  // public list price
  SourceLocation where;                             // file and line it was read from

  double tflops(PeakPrecision p) const { return dense_tflops[static_cast<int>(p)]; }
  // Bytes fits and headroom compare against: the usable figure when the catalog gives one.
  std::uint64_t usable_bytes() const { return usable_memory_bytes > 0 ? usable_memory_bytes : memory_bytes; }
};

enum class Pricing { on_demand, spot, reserved_1y, reserved_3y };
inline constexpr int kPricingCount = 4;
const char* to_string(Pricing p);
std::optional<Pricing> pricing_from_string(const std::string& s);

struct Offer {
  std::string id;         // unique within its provider
  std::string provider;   // provider id
  std::string gpu;        // canonical GPU id (resolved at load)
  int gpus = 1;           // GPUs per instance: whole instances are rented
  std::string region;
  std::optional<int> vcpus;
  std::optional<double> ram_gib;
  std::array<std::optional<double>, kPricingCount> per_gpu_hour;  // sheet currency
  std::optional<double> spot_preemptions_per_hour;
  std::optional<double> interconnect_gbps;  // overrides the GPU's, GB/s per GPU one direction
  std::optional<double> network_gbps;       // node-to-node, Gb/s (bits)
  // Spot across the region's zones: per_gpu_hour[spot] is their median; these are the cheapest
  // and dearest zone (per GPU-hour) and how many zones were seen. Unset when the sheet gives one figure.
  std::optional<double> spot_low, spot_high;
  int spot_zones = 0;
  std::string country;  // ISO 3166-1 alpha-2 as the sheet states it; "" = derived from the region
  SourceLocation where;

  std::optional<double> price(Pricing p) const { return per_gpu_hour[static_cast<int>(p)]; }
  std::string key() const { return provider + "/" + id; }
  // The country the offer's machines are in: the sheet's own `country`, else region_country().
  std::string country_code() const;
  // True when the offer is in country `code` (ISO alpha-2, any case, or a name such as "india").
  bool in_country(const std::string& code) const;
  // --region matching: the region contains `text`, or `text` names the offer's country
  // ("india" matches AWS ap-south-1, GCP asia-south1, OCI ap-mumbai-1, ...).
  bool in_region(const std::string& text) const;
};

// The ISO country code of a cloud region name (AWS, GCP, Azure, OCI and SkyPilot sheet names;
// city or country words such as "mumbai", "india"), or "" when it is not known.
std::string region_country(const std::string& region);
// "IN", "in", "india" -> "IN"; "" when neither a two-letter code nor a known country name.
std::string country_code_of(const std::string& text);

// Whether a sheet's prices already include sales tax (GST, VAT). Unknown sheets are refused at load.
enum class TaxBasis { exclusive, inclusive };
const char* to_string(TaxBasis b);
std::optional<TaxBasis> tax_basis_from_string(const std::string& s);

// Whole days from `from` to `to` (YYYY-MM-DD); nullopt when either is not a calendar date.
std::optional<long> days_between(const std::string& from, const std::string& to);
struct Provider;
// How old a sheet's prices are on `today`; nullopt when its date is unknown.
std::optional<long> prices_age_days(const Provider& p, const std::string& today);
// Prices older than this many days draw a warning unless --stale-after says otherwise.
inline constexpr int kStalePriceDays = 90;

struct Provider {
  std::string id;
  std::string name;
  std::string currency;                 // ISO 4217
  std::string prices_as_of;             // YYYY-MM-DD
  std::string source;
  int billing_increment_seconds = 1;
  int minimum_billed_seconds = 0;
  std::optional<double> startup_seconds;
  std::optional<double> storage_per_gb_month;
  std::optional<double> egress_per_gb;
  std::optional<double> tax_rate;       // the sales tax rate that applies to this sheet's prices
  TaxBasis tax_basis = TaxBasis::exclusive;  // whether the listed prices already include tax_rate
  std::string country;                  // where the provider bills from (ISO alpha-2), "" = unknown
  // When `gpuplan prices update` last fetched or confirmed this sheet (UTC, ISO 8601) if it came
  // from the price cache; "" for shipped and --catalog sheets. `source` is then the URL.
  std::string cached_at;
  std::vector<Offer> offers;
  SourceLocation where;
};

struct FxTable {
  std::string as_of;
  std::string base = "USD";
  std::map<std::string, double> per_base;  // units of currency per 1 unit of base
  SourceLocation where;
  // Converts between any two listed currencies (or the base). nullopt when a rate is missing.
  std::optional<double> convert(double amount, const std::string& from, const std::string& to) const;
};

// A name lookup's outcome: the entry, or why not (ambiguous names list their choices).
template <class T>
struct Lookup {
  const T* found = nullptr;
  std::vector<std::string> ambiguous;  // ids sharing the alias
  std::string suggestion;              // closest id or alias, "" when none
};

class Catalog {
 public:
  std::vector<Gpu> gpus;
  std::vector<ModelArch> models;
  std::vector<Provider> providers;
  FxTable fx;

  // Entries of `later` replace entries of the same id here; new ones are appended.
  void merge(Catalog later);

  Lookup<Gpu> find_gpu(const std::string& name) const;
  // Also resolves a variant's name to its base ("...-Instruct" -> the base model).
  Lookup<ModelArch> find_model(const std::string& name) const;
  Lookup<ModelArch> find_model_exact(const std::string& name) const;
  Lookup<Provider> find_provider(const std::string& name) const;

  std::size_t offer_count() const;
};

// A one-line message for a failed lookup: "unknown GPU 'h10' (did you mean 'h100-sxm'?)".
template <class T>
std::string lookup_failure(const char* kind, const std::string& typed, const Lookup<T>& l) {
  if (!l.ambiguous.empty()) {
    std::string msg = std::string(kind) + " '" + typed + "' is ambiguous: choose one of ";
    for (std::size_t i = 0; i < l.ambiguous.size(); ++i) msg += (i ? ", " : "") + l.ambiguous[i];
    return msg;
  }
  std::string msg = std::string("unknown ") + kind + " '" + typed + "'";
  if (!l.suggestion.empty()) msg += " (did you mean '" + l.suggestion + "'?)";
  return msg;
}

}  // namespace gpuplan

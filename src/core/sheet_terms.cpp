// Terms of a price sheet beyond its prices: which country a cloud region is in (so `--country IN`
// and `--region india` reach every sheet), whether prices include tax, and how old they are.
// Region names are the clouds' own; the cities are from the clouds' region lists
// (AWS: docs.aws.amazon.com/global-infrastructure regions table; GCP: cloud.google.com/compute/docs/regions-zones;
// Azure: learn.microsoft.com/azure/reliability/regions-list; OCI: docs.oracle.com/iaas/Content/General/Concepts/regions.htm),
// India's from shared/reference/india/README.md ("asia-south1 = Mumbai", "ap-south-1 = Asia Pacific (Mumbai)").
#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "gpuplan/catalog.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Exact region names.
constexpr std::pair<const char*, const char*> kRegions[] = {
    // AWS
    {"ap-south-1", "IN"}, {"ap-south-2", "IN"}, {"us-east-1", "US"}, {"us-east-2", "US"}, {"us-west-1", "US"},
    {"us-west-2", "US"}, {"ca-central-1", "CA"}, {"eu-west-1", "IE"}, {"eu-west-2", "GB"}, {"eu-west-3", "FR"},
    {"eu-central-1", "DE"}, {"eu-central-2", "CH"}, {"eu-north-1", "SE"}, {"eu-south-1", "IT"}, {"eu-south-2", "ES"},
    {"ap-northeast-1", "JP"}, {"ap-northeast-2", "KR"}, {"ap-northeast-3", "JP"}, {"ap-southeast-1", "SG"},
    {"ap-southeast-2", "AU"}, {"ap-southeast-3", "ID"}, {"ap-east-1", "HK"}, {"sa-east-1", "BR"}, {"me-central-1", "AE"},
    {"me-south-1", "BH"}, {"il-central-1", "IL"}, {"af-south-1", "ZA"},
    // GCP
    {"asia-south1", "IN"}, {"asia-south2", "IN"}, {"asia-east1", "TW"}, {"asia-east2", "HK"}, {"asia-northeast1", "JP"},
    {"asia-northeast2", "JP"}, {"asia-northeast3", "KR"}, {"asia-southeast1", "SG"}, {"asia-southeast2", "ID"},
    {"australia-southeast1", "AU"}, {"australia-southeast2", "AU"}, {"europe-west1", "BE"}, {"europe-west2", "GB"},
    {"europe-west3", "DE"}, {"europe-west4", "NL"}, {"europe-west6", "CH"}, {"europe-west8", "IT"}, {"europe-west9", "FR"},
    {"europe-west10", "DE"}, {"europe-west12", "IT"}, {"europe-north1", "FI"}, {"europe-north2", "SE"},
    {"europe-central2", "PL"}, {"europe-southwest1", "ES"}, {"me-west1", "IL"}, {"me-central1", "QA"},
    {"me-central2", "SA"}, {"northamerica-northeast1", "CA"}, {"northamerica-northeast2", "CA"},
    {"northamerica-south1", "MX"}, {"southamerica-east1", "BR"}, {"southamerica-west1", "CL"}, {"africa-south1", "ZA"},
    // Azure
    {"centralindia", "IN"}, {"southindia", "IN"}, {"westindia", "IN"}, {"jioindiawest", "IN"}, {"jioindiacentral", "IN"},
    // Lambda (SkyPilot sheet names)
    {"asia-south-1", "IN"}, {"me-west-1", "IL"},
};

// Words inside a region name that settle its country (OCI "ap-mumbai-1", Shadeform "bangalore-india-1").
constexpr std::pair<const char*, const char*> kWords[] = {
    {"india", "IN"},   {"mumbai", "IN"},    {"hyderabad", "IN"}, {"bangalore", "IN"}, {"bengaluru", "IN"},
    {"delhi", "IN"},   {"chennai", "IN"},   {"pune", "IN"},      {"noida", "IN"},     {"tokyo", "JP"},
    {"osaka", "JP"},   {"singapore", "SG"}, {"sydney", "AU"},    {"melbourne", "AU"}, {"frankfurt", "DE"},
    {"london", "GB"},  {"amsterdam", "NL"}, {"paris", "FR"},     {"seoul", "KR"},     {"ashburn", "US"},
    {"phoenix", "US"}, {"chicago", "US"},   {"toronto", "CA"},   {"montreal", "CA"},  {"jerusalem", "IL"},
};

constexpr std::pair<const char*, const char*> kCountryNames[] = {
    {"india", "IN"}, {"united states", "US"}, {"usa", "US"}, {"japan", "JP"}, {"singapore", "SG"},
    {"germany", "DE"}, {"united kingdom", "GB"}, {"uk", "GB"}, {"france", "FR"}, {"netherlands", "NL"},
    {"australia", "AU"}, {"canada", "CA"}, {"finland", "FI"}, {"sweden", "SE"}, {"brazil", "BR"},
};

}  // namespace

std::string region_country(const std::string& region) {
  const std::string r = lower(region);
  for (const auto& [name, code] : kRegions)
    if (r == name) return code;
  for (const auto& [word, code] : kWords)
    if (r.find(word) != std::string::npos) return code;
  // AWS/GCP-style "us-east-1", "us-central1", Lambda's "us-south-1": the United States.
  if (r.rfind("us-", 0) == 0) return "US";
  return "";
}

std::string country_code_of(const std::string& text) {
  const std::string t = lower(text);
  for (const auto& [name, code] : kCountryNames)
    if (t == name) return code;
  if (t.size() == 2 && std::isalpha(static_cast<unsigned char>(t[0])) && std::isalpha(static_cast<unsigned char>(t[1])))
    return std::string{static_cast<char>(std::toupper(static_cast<unsigned char>(t[0]))),
                       static_cast<char>(std::toupper(static_cast<unsigned char>(t[1])))};
  return "";
}

std::string Offer::country_code() const { return country.empty() ? region_country(region) : country; }

bool Offer::in_country(const std::string& code) const {
  const std::string want = country_code_of(code);
  return !want.empty() && country_code() == want;
}

bool Offer::in_region(const std::string& text) const {
  if (region.find(text) != std::string::npos) return true;
  // Only a country *name* widens --region; a two-letter text stays a plain substring match.
  const std::string t = lower(text);
  for (const auto& [name, code] : kCountryNames)
    if (t == name) return country_code() == code;
  return false;
}

const char* to_string(TaxBasis b) { return b == TaxBasis::inclusive ? "inclusive" : "exclusive"; }

std::optional<TaxBasis> tax_basis_from_string(const std::string& s) {
  if (s == "inclusive") return TaxBasis::inclusive;
  if (s == "exclusive") return TaxBasis::exclusive;
  return std::nullopt;
}

std::optional<long> days_between(const std::string& from, const std::string& to) {
  if (!is_calendar_date(from) || !is_calendar_date(to)) return std::nullopt;
  // Days since 1970-01-01 (Howard Hinnant's days_from_civil).
  auto days = [](const std::string& s) {
    long y = std::stol(s.substr(0, 4));
    const long m = std::stol(s.substr(5, 2)), d = std::stol(s.substr(8, 2));
    y -= m <= 2;
    const long era = (y >= 0 ? y : y - 399) / 400;
    const long yoe = y - era * 400;
    const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
  };
  return days(to) - days(from);
}

std::optional<long> prices_age_days(const Provider& p, const std::string& today) { return days_between(p.prices_as_of, today); }

}  // namespace gpuplan

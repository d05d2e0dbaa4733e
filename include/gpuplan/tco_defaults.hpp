#pragma once
#include "gpuplan/units.hpp"
// The defaults `gpuplan buy-vs-rent` uses when a flag is not given. Every one is a number with
// its source; "derived" marks arithmetic done here on cited inputs. Money is USD (the CLI
// converts). Consumer and workstation cards get the desk-side figures, data-centre parts the
// rack figures. Every default has an override flag (named in the comment).
namespace gpuplan::tco_defaults {

// --- time -----------------------------------------------------------------------------------
// The month: gpuplan::kHoursPerMonth (units.hpp), the one every command uses.
using gpuplan::kHoursPerMonth;
// --horizon. source: cost_notes.md §3: the 8xH100 figures are a "3-yr TCO" (v2-pseo-ai.pages.dev)
// and the datafabric.cloud rule of thumb is "sustained utilisation > ~50% over 3 years".
inline constexpr int kHorizonMonths = 36;

// --- the rest of the machine ----------------------------------------------------------------
// --gpus-per-build, --rest-of-machine. Desk-side: a 4-GPU rig whose CPU, board, RAM, NVMe, PSU
// and chassis cost 1314 USD. source (derived): thinksmart.life/research/posts/gpu-rig-budget-vs-pro,
// "pro tier" 4x RTX 3090 build ~4314 USD total with the GPUs at ~750 USD each: 4314 - 4 x 750.
// (Not yet in shared/reference/cost_notes.md; the seeds, 000_6afa4c2ebadccef1.txt, list the parts:
// "GPU, motherboard, CPU, RAM, NVMe storage, and power supply".)
inline constexpr int kGpusPerBuildConsumer = 4;
inline constexpr double kRestOfMachineConsumerUsd = 1314.0;
// Rack: an 8-GPU node. source: cost_notes.md §3 / prices_public.yaml hardware "8x H100 server node".
inline constexpr int kGpusPerBuildDatacentre = 8;
// Data-centre rest of machine as a share of the node's GPU price: network and cabling "+10-15%
// capex" (cost_notes.md §3, v2-pseo-ai.pages.dev), midpoint 12.5%. The server host is NOT in it:
// the same page prices the whole 8xH100 node at 300-350k USD; pass --rest-of-machine with a quote.
inline constexpr double kRestOfMachineDatacentreShare = 0.125;

// --- power ----------------------------------------------------------------------------------
// --power-price. Desk-side: US residential average 0.15-0.16 USD/kWh (EIA, as cited by
// localrig.pages.dev and hacecuentas.com; prices_public.yaml electricity), the upper figure.
inline constexpr double kPowerPriceConsumerUsdPerKwh = 0.16;
// Rack: "power 0.06-0.12 USD/kWh" (cost_notes.md §3, v2-pseo-ai.pages.dev), midpoint.
inline constexpr double kPowerPriceDatacentreUsdPerKwh = 0.09;
// --load-factor: wall power while busy as a multiple of the GPU's TDP. Desk-side 1.0: the cited
// calculator charges TDP x hours (cost_notes.md §3, hacecuentas.com; "4090 at 450 W x 720 h").
inline constexpr double kLoadFactorConsumer = 1.0;
// Rack (derived): the 8xH100 node draws "10.2 kW" (cost_notes.md §3) against 8 x 700 W of GPU
// TDP (data/gpus.yaml h100-sxm): 10.2 / 5.6 = 1.82, host, fans and network included.
inline constexpr double kLoadFactorDatacentre = 1.82;
// --idle-power: draw of an owned GPU while it has no work, as a share of TDP. 0: the cited
// calculators charge power for the hours of use only (cost_notes.md §3, hacecuentas.com).
inline constexpr double kIdlePowerShare = 0.0;
// --pue. Desk-side 1.0: no cooling plant (the cited calculators add none, cost_notes.md §3).
inline constexpr double kPueConsumer = 1.0;
// Rack: industry average PUE 1.58 in 2023 (Uptime Institute Global Data Center Survey,
// intelligence.uptimeinstitute.com "UII update 221", Nov 2023). Not yet in cost_notes.md.
inline constexpr double kPueDatacentre = 1.58;
// --colo, USD per provisioned kW per month (TDP x load factor). Desk-side: none. Rack: "colo
// 150-250 USD/kW/month" (cost_notes.md §3, v2-pseo-ai.pages.dev), midpoint.
inline constexpr double kColoConsumerUsdPerKwMonth = 0.0;
inline constexpr double kColoDatacentreUsdPerKwMonth = 200.0;

// --- upkeep ---------------------------------------------------------------------------------
// --maintenance: share of the hardware price per year. source: cost_notes.md §3, hacecuentas.com
// worked example "new 4090 $1,899, ..., 8% overhead" (monthly own = ... + price x overhead / 12).
inline constexpr double kMaintenancePerYear = 0.08;
// --failure-rate: GPUs replaced per GPU-year, at the purchase price. source (derived): Meta's
// Llama 3 report, 16,384 H100s over 54 days: 148 "faulty GPU" + 72 "GPU HBM3 memory" unexpected
// interruptions (datacenterdynamics.com, Jul 2024): 220 / 16384 x 365 / 54 = 0.0908. An upper
// bound (an interruption is not always a replacement); cost_notes.md §3 has "spares 5-10%".
inline constexpr double kFailuresPerGpuYear = 0.0908;
// --ops-hours-per-month, --engineer-rate: no published figure in the references, so engineer
// time is left out until given, and the report says so (seeds 000_6afa4c2ebadccef1.txt ask for it).
inline constexpr double kOpsHoursPerMonth = 0.0;

// --- the end --------------------------------------------------------------------------------
// --resale: share of value kept per year (residual = price x kept^years). Desk-side (derived):
// a used RTX 3090 sells for 600-800 USD (prices_public.yaml, eBay observed 2026-06-29), midpoint
// 700, against its 1499 USD launch MSRP (data/gpus.yaml, Sep 2020), 5.76 years earlier:
// (700 / 1499)^(1 / 5.76) = 0.876.
inline constexpr double kResaleKeptPerYearConsumer = 0.876;
// Rack (derived): "residual 25-35% after 36 months" (cost_notes.md §3), midpoint 30%:
// 0.30^(1/3) = 0.669.
inline constexpr double kResaleKeptPerYearDatacentre = 0.669;
// --financing: annual interest on the hardware, 0 = bought outright.
inline constexpr double kFinancingPerYear = 0.0;

// --- the verdict ----------------------------------------------------------------------------
// "If you cannot predict GPU utilization within about 30-50%, avoid buying hardware too early."
// (shared/seeds/001_96e2f2ca7c76cdb8.txt, rule of thumb 14). From 30% (the lower end) on, owned
// GPUs must still pay at the low end of demand.
inline constexpr double kUncertaintyRule = 0.30;
// The sensitivity swing: "cloud price ±20%" (issue 5), used for every factor.
inline constexpr double kSensitivitySwing = 0.20;

// --- India (--country IN) -------------------------------------------------------------------
// Figures in INR, as published; the CLI uses them instead of converting the US defaults when the
// buyer is in India. Sourced facts only; what no source read gave is absent (see below).
namespace india {
// Commercial power, INR/kWh: Maharashtra (MSEDCL) HT II "commercial establishments" FY 2024-25
// tariff Rs 13.21/kWh, MERC order effective 1 April 2024 (mercomindia.com/maharashtra-regulator-
// approves-18-hike-in-ci-consumer-tariff-for-fy24, April 2023; also solarquarter.com, 2023-04-04).
// A rack in a Mumbai colo or an office pays this class; desk-side builds in an office too.
inline constexpr double kPowerPriceCommercialInrPerKwh = 13.21;
inline constexpr const char* kPowerPriceSource =
    "MSEDCL HT II commercial FY2024-25, MERC order (mercomindia.com/maharashtra-regulator-approves-18-hike-in-ci-consumer-tariff-for-fy24, Apr 2023)";
// The order's energy charge only: the state's electricity duty and fixed/demand charges are not in
// it and no source read gives them for this class, so they are not added (the report says so).
inline constexpr const char* kPowerPriceNote =
    "the tariff is MERC's energy charge: the state's electricity duty and demand charges are not included (add them to --power-price)";
// Industrial HT I(A) FY 2024-25, Rs 8.36/kWh (same order): for a self-run machine room on an
// industrial connection (pass --power-price 8.36INR/kWh).
inline constexpr double kPowerPriceIndustrialInrPerKwh = 8.36;
// GST on hardware bought in India, or IGST on an import: 18%. Source: India customs tariff
// lines 8471 41 20 / 8471 80 00 list "IGST 18" (treayo.com/en/hs/india/84718000, read
// 2026-12-03); cloud services carry the same 18% (shared/reference/india/README.md §3 cites
// captainbiz.com). A GST-registered buyer recovers it as input-tax credit (--input-tax-credit).
inline constexpr double kGstOnHardware = 0.18;
// GST on cloud GPU rental billed to a buyer in India: 18% (an OIDAR service; captainbiz.com/blogs/
// place-of-supply-for-remote-and-online-services-digital-downloads-cloud-computing-etc). A foreign
// provider's pre-tax list price carries it too: charged by the supplier to an unregistered buyer,
// self-assessed under reverse charge (and credited back) by a registered one.
inline constexpr double kGstOnCloudServices = 0.18;
inline constexpr const char* kCloudGstSource =
    "18% GST on cloud services, OIDAR (captainbiz.com/blogs/place-of-supply-for-remote-and-online-services-digital-downloads-cloud-computing-etc)";
inline constexpr const char* kGstSource =
    "IGST 18% on tariff lines 8471 and 8473 30 (treayo.com/en/hs/india/84718000, read 2026-12-03)";
// Import duty. Basic customs duty on heading 8471 (automatic data processing machines and
// units: servers, GPU boards as units) and 8473 30 (their parts and accessories: graphics
// cards) is nil: Notification 24/2005-Customs of 1 March 2005, table S.No. 8 "8471 All goods"
// and S.No. 10 "8473 30 All goods" (taxmanagementindia.com/visitor/detail_notification.asp?ID=3381;
// web.lawcrux.com .../cunoti08_05_24t.htm), confirmed as "BCD 0, SWS 0, IGST 18" for 8471 80 00
// (treayo.com/en/hs/india/84718000, read 2026-12-03). A GPU board is classed under one or the
// other; both are nil. Any other line needs --customs-duty (no rate is guessed).
struct ImportLine {
  const char* hs_code;
  double basic;
};
inline constexpr ImportLine kImportLines[] = {{"8473 30", 0.0}, {"8471", 0.0}};
// Social welfare surcharge: 10% of the customs duties (Finance Act 2018 s.110(3), text at
// scribd.com/document/517259269; in force 2 Feb 2018, gstlawindia.in). On a nil duty it is nil
// (Ministry of Finance clarification, 1 Feb 2022, updates.manupatra.com iid=36736).
inline constexpr double kSwsShareOfDuty = 0.10;
inline constexpr const char* kImportSource =
    "BCD nil on 8471 and 8473 30 (Notification 24/2005-Customs, 1 Mar 2005, S.No. 8 and 10); SWS 10% of the duty (Finance Act 2018 s.110)";
// Not found in any source read, so not defaulted: Indian street prices of any GPU. The CLI
// uses the catalog's US list price converted to INR as the customs value of an import, labels
// it so in the table and JSON, and warns (--gpu-price gives a real quote).
}  // namespace india

}  // namespace gpuplan::tco_defaults

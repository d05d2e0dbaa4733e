#!/usr/bin/env bash
# End-to-end checks of `gpuplan buy-vs-rent` on a made-up sheet with round numbers, so the
# figures match the hand computations in tests/core/tco_test.cpp.
# Usage: GPUPLAN=path/to/gpuplan buy_vs_rent_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat >"$TMP/sheet.yaml" <<'EOF'
providers:
  - id: flat-cloud
    name: Flat Cloud
    currency: USD
    prices_as_of: 2026-12-01
    source: test fixture
    billing_increment_seconds: 1
    offers:
      - {id: rtx, gpu: rtx-4090, gpus: 1, region: test-1, on_demand_per_gpu_hour: 0.40, spot_per_gpu_hour: 0.30}
      - {id: one-dollar, gpu: rtx-4090, gpus: 1, region: test-1, on_demand_per_gpu_hour: 1.00}
EOF
# The RTX 4090 build of tco_test.cpp: 1600 + 1400, 0.15/kWh, 8% upkeep, 5% failures, 80% kept a year.
TERMS=(--gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/rtx --maintenance 8% --failure-rate 5% --resale 80%
  --load-factor 1 --pue 1)
BUILD=("${TERMS[@]}" --gpu-price 1600 --rest-of-machine 1400 --power-price 0.15/kWh)

# 90%: owning 111.68/month against 262.80 renting; break-even 202.51 GPU-h; payback 15.64 months.
expect 0 "90% utilisation" -- "$G" buy-vs-rent "${BUILD[@]}" --utilisation 90% --format json
has out '"schema_version": 1' "schema_version"
has out '"verdict": "BUY"' "BUY at 90%"
has out '"rent": 262\.8' "657 GPU-h x 0.40"
has out '"buy": 111\.68' "owning per month"
has out '"break_even_gpu_hours_per_month": 202\.50' "break-even GPU-h"
has out '"payback_months": 15\.64' "payback"
has out '"owned_gpus": 1,' "owned GPUs"
has out '"reasons": \[' "reasons listed"
has out '"spot": 197\.1' "spot alternative 657 x 0.30"

# 20%: renting 58.40 against owning 77.19.
expect 0 "20% utilisation" -- "$G" buy-vs-rent "${BUILD[@]}" --utilisation 20% --format json
has out '"verdict": "RENT"' "RENT at 20%"
has out '"rent": 58\.4' "146 GPU-h x 0.40"
has out '"owned_gpus": 0,' "nothing owned"

# The table: verdict, reasons with numbers, every section, a bar chart; the seeds' rule named.
expect 0 "table" -- "$G" buy-vs-rent "${BUILD[@]}" --gpu-hours-per-month 300 --uncertainty ±40% --no-color
has out '^Verdict: (BUY|RENT|HYBRID)' "verdict first"
has out 'break-even at 202\.5 GPU-h/month' "break-even in words"
has out "the rule: avoid buying" "uncertainty rule applied, named in words"
has out 'Monthly cost per option' "monthly table"
has out 'Sensitivity' "sensitivity table"
has out 'verdict flips' "flip column"
has out 'Cumulative cost' "chart"
has out '█' "bars drawn"
expect 0 "no uncertainty" -- "$G" buy-vs-rent "${BUILD[@]}" --gpu-hours-per-month 300
has out 'is not applied' "the rule is said to be off"

# A bursty profile (tco_test.cpp): own 2 of 4, rent the bursts: 657.00/month.
printf 'day,gpu_hours\n' >"$TMP/bursty.csv"
for d in 01 02 03 04 05 06 07 08; do printf '2026-03-%s,48\n' "$d" >>"$TMP/bursty.csv"; done
printf '2026-03-09,96\n2026-03-10,96\n' >>"$TMP/bursty.csv"
HYB=(--gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/one-dollar --gpu-price 2190 --rest-of-machine 0
  --gpus-per-build 4 --power-price 0/kWh --maintenance 0% --failure-rate 0% --resale 0% --horizon 12mo)
expect 0 "bursty profile" -- "$G" buy-vs-rent "${HYB[@]}" --demand "$TMP/bursty.csv" --format json
has out '"verdict": "HYBRID"' "HYBRID wins"
has out '"verdict": 657\.0' "own 2: 365 + 292"
has out '"rent": 1752\.0' "renting everything"
has out '"buy": 730\.0' "owning all four"
has out '"fleet_gpus": 4' "peak of 4 GPUs"
has out '"period": "day"' "profile period"
# The same profile as YAML, in average GPUs busy.
printf 'period: day\nstart: 2026-03-01\ngpus: [2, 2, 2, 2, 2, 2, 2, 2, 4, 4]\n' >"$TMP/bursty.yaml"
expect 0 "bursty profile, YAML" -- "$G" buy-vs-rent "${HYB[@]}" --demand "$TMP/bursty.yaml" --format json
has out '"verdict": 657\.0' "same answer from YAML"

# CSV is the cumulative series, for plotting.
expect 0 "csv" -- "$G" buy-vs-rent "${BUILD[@]}" --utilisation 90% --format csv
has out '^month,rent,buy' "series header"
has out '^36,9460\.80,4020\.51' "last month: 262.80 x 36 and 111.6808 x 36"

# Money in INR at the shipped rate (90.3957 INR/USD): prices typed in USD stay USD. A US buyer:
# the display currency never makes the buyer Indian (issue #27).
expect 0 "INR" -- "$G" buy-vs-rent "${TERMS[@]}" --gpu-price 1600USD --rest-of-machine 1400USD --power-price 0.15USD/kWh \
  --utilisation 90% --currency INR --format json
has out '"currency": "INR"' "display currency"
has out '"rent": 23755\.9' "262.80 USD x 90.3957"

# Buying in India (tests/core/tco_purchase_test.cpp works the figures by hand): the 4090 has no
# sourced Indian street price, so its US list price, converted and labelled, is imported at nil
# duty (HS 8473 30) plus 18% IGST; power is MERC's 13.21 INR/kWh, not a converted US tariff.
IN=(--gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/rtx --gpu-hours-per-month 300 --buyer-country IN)
expect 0 "India defaults" -- "$G" buy-vs-rent "${IN[@]}" --format json
has out '"currency": "INR"' "--buyer-country IN shows INR"
has out '"country": "IN"' "buyer country in JSON"
has out '"total": 170560\.41' "GPU: 144,542.72 INR customs value + 18% IGST"
has out '"price_basis": "US list x FX \(!\)"' "the converted list price is labelled"
has out '"power_price_per_kwh": 13\.21' "MERC commercial tariff"
has out '"buy": 7974\.49' "owning per month, as in tco_purchase_test.cpp (7,974.50)"
has out '"rent": 12800\.03' "renting carries GST too: 300 h x 0.40 USD x 1.18 x 90.3957"
has out '"warnings": \[' "warnings in JSON"
has out 'no IN street price of rtx-4090' "the stand-in price is warned about"
expect 0 "India table" -- "$G" buy-vs-rent "${IN[@]}" --no-color
has out 'Hardware purchase, buyer in IN' "purchase table"
has out 'import 8473 30 \(BCD 0\.0%\)' "duty line named"
has out 'warning: no IN street price' "warning under the tables"
has err 'warning: no IN street price' "warning on stderr"
expect 0 "India, input-tax credit" -- "$G" buy-vs-rent "${IN[@]}" --input-tax-credit --format json
has out '"buy": 7030\.08' "GST comes back: hardware at its pre-tax price"
has out '"rent": 10847\.48' "and on the rent: 300 h x 0.40 USD x 90.3957"
expect 0 "India, own quote" -- "$G" buy-vs-rent "${IN[@]}" --gpu-price 180000 --rest-of-machine 120000 --format json
has out '"terms": "GST in the price"' "a quote holds GST"
has out '"total": 180000' "counted as quoted"
# Display currency is display only: INR owes no GST (#27: runpod's 4090 cost 64.00 INR/h here
# against 54.24 in compare). The same offer: 300 h x 0.40 USD x 90.3957, no GST, no Indian power.
expect 0 "INR is display only" -- "$G" buy-vs-rent --gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/rtx \
  --gpu-hours-per-month 300 --currency INR --format json
has out '"country_from": "default"' "INR does not make the buyer Indian"
has out '"country": "US"' "a US buyer"
has out '"rent": 10847\.48' "no GST on the rent"
expect 0 "the same in USD" -- "$G" buy-vs-rent --gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/rtx \
  --gpu-hours-per-month 300 --format json
has out '"rent": 120\.0' "120 USD x 90.3957 = 10,847.48 INR"
# --country is compare's offer filter; the buyer is --buyer-country.
expect 2 "--country filters the rented offers" -- "$G" buy-vs-rent --gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/rtx \
  --gpu-hours-per-month 300 --country JP
has err 'outside --provider/--region/--country' "a pinned offer outside the filter is refused"
expect 0 "--gpu-hours-per-week is the same demand" -- "$G" buy-vs-rent --gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/rtx \
  --gpu-hours-per-week 84 --format json
has out '"gpu_hours_per_month": 365\.0' "84 x 730/168 = 365"
expect 2 "India, unsourced tariff line" -- "$G" buy-vs-rent "${IN[@]}" --hs-code "8542 31"
has err "field '--customs-duty'" "asks for the duty"
expect 0 "India, given duty" -- "$G" buy-vs-rent "${IN[@]}" --hs-code "8542 31" --customs-duty 10% --format json
has out '"basic_customs_duty": 14454\.27' "10% of 144,542.72"
expect 2 "import terms outside India" -- "$G" buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300 --buyer-country US --purchase import
has err "field '--purchase'" "names the flag"
expect 0 "another country: converted and warned" -- "$G" buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300 --buyer-country DE --format json
has out 'no DE power tariff is sourced' "power stand-in warned"

# No offer rents the GPU: the nearest equivalent is used, and said so.
expect 0 "equivalent GPU" -- "$G" buy-vs-rent --gpu rtx-5090 --gpu-hours-per-month 300 --format json
has out '"equivalent": true' "equivalent flagged"
expect 0 "equivalent GPU, table" -- "$G" buy-vs-rent --gpu rtx-5090 --gpu-hours-per-month 300
has out 'no loaded offer rents rtx-5090' "note says which GPU is rented"

# Reserved: DigitalOcean's 12-month H100x8 at 1.99 against on-demand, at 80%.
expect 0 "reserved check" -- "$G" buy-vs-rent --gpu h100-sxm --count 8 --utilisation 80% --gpu-price 25000 --format json
has out '"term": "reserved-1y"' "commitment checked"
has out '"committed_monthly": 11621\.6' "8 x 730 x 1.99"
has out '"pays": true' "pays at 80%"
expect 0 "data-centre defaults said" -- "$G" buy-vs-rent --gpu h100-sxm --count 8 --utilisation 80% --gpu-price 25000
has out 'network and cabling only' "rest-of-machine caveat"
has out 'PUE 1\.58' "data-centre PUE default"

# Sensitivity (issue 15.10): the tco_test.cpp 8xH100 build against 2.30/GPU-h. The verdict owns
# 6 of the 8, so every row compares owning 6 with renting, and its sign agrees with its verdict:
# power +20% is 8612.08 owning 6 against 9402.40 renting, -790.32 (owning all 8 would be +).
cat >"$TMP/h100.yaml" <<'EOF2'
providers:
  - id: flat-cloud
    name: Flat Cloud
    currency: USD
    prices_as_of: 2026-12-01
    source: test fixture
    billing_increment_seconds: 1
    offers:
      - {id: h100x8, gpu: h100-sxm, gpus: 8, region: test-1, on_demand_per_gpu_hour: 2.30}
EOF2
H100=(--gpu h100-sxm --count 8 --utilisation 70% --catalog "$TMP/h100.yaml" --offer flat-cloud/h100x8 --gpu-price 25000
  --rest-of-machine 25000 --gpus-per-build 8 --power-price 0.10/kWh --load-factor 1.8 --pue 1.5 --idle-power 0%
  --maintenance 5% --failure-rate 2% --colo 200/kW --ops-hours-per-month 20 --engineer-rate 100/h --resale 70%)
expect 0 "sensitivity of a partial BUY" -- "$G" buy-vs-rent "${H100[@]}" --no-color
has out 'Verdict: BUY: own 6 x h100-sxm of 8' "the verdict owns 6"
has out 'power price +0\.100 USD/kWh +BUY 6 \(-[0-9.,]+\) +BUY 6 \(-790\.32\)' "power row: BUY 6, negative"
has out 'cloud price .*RENT \(own 6: \+[0-9.]+\)' "a RENT end compares the verdict's 6, positive"
lacks out 'BUY( [0-9]+)? \(\+' "no BUY row with a positive owning-minus-renting"
expect 0 "sensitivity json" -- "$G" buy-vs-rent "${H100[@]}" --format json
has out '"compared_owned_gpus": 6' "rows compare the verdict's 6"

# Help has examples; bad input exits 2 naming the flag.
expect 0 "help" -- "$G" buy-vs-rent --help
has out 'Examples:' "footer examples"
expect 2 "no price for an H100" -- "$G" buy-vs-rent --gpu h100-sxm --gpu-hours-per-month 300
has err "field '--gpu-price'" "says to pass --gpu-price"
expect 2 "utilisation over 100%" -- "$G" buy-vs-rent --gpu rtx-4090 --utilisation 101%
has err "field '--utili[sz]ation'" "utilisation range"
expect 2 "zero horizon" -- "$G" buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300 --horizon 0y
has err "field '--horizon'" "horizon"
printf 'day,gpu_hours\n2026-03-01,48\n2026-03-03,48\n' >"$TMP/gap.csv"
expect 2 "gap in a profile" -- "$G" buy-vs-rent --gpu rtx-4090 --demand "$TMP/gap.csv"
has err 'gap\.csv:3:1: field .day.: a gap' "file:line of the gap"

finish

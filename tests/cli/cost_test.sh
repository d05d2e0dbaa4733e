#!/usr/bin/env bash
# End-to-end checks of time and cost: `compare` and `estimate`'s cost side on a made-up sheet
# with round numbers (tests/fixtures/price_sheet_hourly.yaml).
# Usage: GPUPLAN=path/to/gpuplan cost_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SHEET="$1/fixtures/price_sheet_hourly.yaml"
JOB=(--model llama-3.2-1b --method lora --catalog "$SHEET")

# Hourly billing: 10 steps take seconds, plus 300 s start-up, and one whole hour is paid.
expect 0 "compare hourly" -- "$G" compare "${JOB[@]}" --steps 10 --provider hourly-cloud --format json
has out '"schema_version": 1' "compare JSON has schema_version"
has out '"offers": \[' "compare JSON lists offers"
has out '"total": 2.0,' "1 GPU x 1 hour x \$2"
has out '"total": 12.0,' "a whole 8-GPU instance is billed"
has out '"billed_seconds": 3600.0' "hourly increment"
has out '"pareto": true' "Pareto front marked"
has out '"meets_budget": null' "no budget, no verdict"

# Sorting by time puts the 8-GPU instance first.
expect 0 "compare --sort time" -- "$G" compare "${JOB[@]}" --tokens 50M --provider hourly-cloud --sort time --format csv
has out '^hourly-cloud,eight' "fastest first"

# INR sheet with 18% GST, shown in INR and in USD at the shipped dated rate.
expect 0 "compare INR" -- "$G" compare "${JOB[@]}" --tokens 50M --provider rupee-cloud --currency INR --format json
has out '"currency": "INR"' "display currency"
has out '"rate_per_hour": 118.0' "100 INR/h + 18% GST"
expect 0 "compare INR sheet in USD" -- "$G" compare "${JOB[@]}" --tokens 50M --provider rupee-cloud --format json
has out '"rate_per_hour": 1.30' "118 INR/h at 90.3957 INR/USD"
expect 0 "--fx overrides the table" -- "$G" compare "${JOB[@]}" --tokens 50M --provider rupee-cloud --fx USD:INR=118 --format json
has out '"rate_per_hour": 1.0,' "118 INR at 118 per USD"
expect 0 "--tax overrides the sheet" -- "$G" compare "${JOB[@]}" --tokens 50M --provider rupee-cloud --tax 0% --currency INR --format json
has out '"rate_per_hour": 100.0' "no tax"

# Spot: Young interval, expected preemptions, and a deadline probability.
expect 0 "spot" -- "$G" compare "${JOB[@]}" --tokens 2B --provider hourly-cloud --pricing spot --deadline 3d --format json
has out '"checkpoint_interval_seconds"' "spot interval reported"
has out '"p_miss_deadline": [0-9]' "deadline miss probability"
has out '"offers": \[' "spot priced"
has out '"offer": "one"' "only the offer with a spot price"
has out '"why": "no spot price"' "the other is excluded with a reason"

# Gates: a budget or deadline nobody meets exits 1; nothing that fits exits 1.
expect 1 "budget too small" -- "$G" compare "${JOB[@]}" --steps 10 --provider hourly-cloud --budget 1
has out 'over budget' "over budget marked"
expect 1 "deadline too short" -- "$G" compare "${JOB[@]}" --tokens 2B --provider hourly-cloud --deadline 10m
expect 0 "budget met" -- "$G" compare "${JOB[@]}" --steps 10 --provider hourly-cloud --budget 5
expect 1 "nothing fits" -- "$G" compare --model llama-3.1-405b --method full --catalog "$SHEET" --provider hourly-cloud --explain
has out 'Excluded offers' "--explain lists exclusions"
has out 'needs [0-9]+ GiB per GPU' "exclusion reason"

# Side by side on two sheets.
expect 0 "--sheet twice" -- "$G" compare --model llama-3.2-1b --method lora --tokens 100M --sheet "$SHEET" \
  --sheet "$1/../data/providers/lambda.yaml"
has out 'Sheets side by side' "side-by-side table"
has out 'best' "the best sheet named"

# estimate grows a time-and-cost section.
expect 0 "estimate --offer" -- "$G" estimate "${JOB[@]}" --tokens 50M --offer hourly-cloud/one --format json
has out '"time": \{' "time object"
has out '"step_seconds"' "time.step_seconds"
has out '"tokens_per_second_per_gpu"' "time.tokens_per_second_per_gpu"
has out '"cost": \[' "cost list"
has out '"per_million_tokens"' "cost.per_million_tokens"
expect 0 "estimate without a run size" -- "$G" estimate --model llama-3.1-8b --method qlora --gpu rtx-4090
has out 'Cheapest offers that fit' "cost table"
has out 'no run size given' "says costs are rates"

# Bad run flags exit 2 naming the flag.
expect 2 "bad pricing" -- "$G" compare "${JOB[@]}" --pricing spott
has err "--pricing.*did you mean 'spot'" "pricing suggestion"
expect 2 "bad currency" -- "$G" compare "${JOB[@]}" --currency rupees
has err "--currency" "currency flag named"
expect 2 "no rate" -- "$G" compare "${JOB[@]}" --currency JPY
has err "no exchange rate for JPY" "missing rate explained"
expect 2 "bad fx" -- "$G" compare "${JOB[@]}" --fx USD-INR
has err "--fx.*FROM:TO=RATE" "fx format explained"
expect 2 "negative fx" -- "$G" compare "${JOB[@]}" --fx USD:INR=-3
expect 2 "two run sizes" -- "$G" compare "${JOB[@]}" --tokens 1B --steps 10
expect 2 "epochs alone" -- "$G" compare "${JOB[@]}" --epochs 3
expect 2 "bad deadline" -- "$G" compare "${JOB[@]}" --deadline 3
has err "--deadline" "deadline flag named"
expect 2 "bad mfu" -- "$G" compare "${JOB[@]}" --mfu 150%
expect 2 "packing off without sample size" -- "$G" compare "${JOB[@]}" --packing off
expect 2 "bad offer" -- "$G" estimate "${JOB[@]}" --offer hourly-cloud/nope
has err "has no offer 'nope'" "offer lookup"
EUR="$1/fixtures/price_sheet_eur.yaml"
expect 2 "sheet currency without a rate" -- "$G" compare --model llama-3.2-1b --method lora --catalog "$EUR" --provider eur-cloud
has err "price_sheet_eur.yaml:[0-9]+:[0-9]+: field 'currency': no exchange rate from EUR to USD" "names the sheet and line"
expect 0 "--fx supplies it" -- "$G" compare --model llama-3.2-1b --method lora --catalog "$EUR" --provider eur-cloud --fx EUR:USD=1.25 --format json
has out '"rate_per_hour": 2.5' "2 EUR at 1.25 USD"
expect 2 "bad sort" -- "$G" compare "${JOB[@]}" --sort price

finish

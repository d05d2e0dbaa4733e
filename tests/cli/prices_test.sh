#!/usr/bin/env bash
# Issue 22 end to end: GCP's SkyPilot sheet priced as GCP bills it, SkyPilot's cache, country and
# region filters, tax basis, stale-price warnings, instruct names.
# Usage: GPUPLAN=path/to/gpuplan prices_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
GCP="$1/fixtures/skypilot/gcp_vms.csv"
JOB=(--model llama-3.1-8b --method lora --tokens 10M)

# GCP: host + accelerator rows -> offers; the Mumbai 8xH100 at 91.34574/8 per GPU-hour.
expect 0 "validate GCP sheet" -- "$G" catalog validate "$GCP"
has out 'gcp_vms.csv +0 +0 +1 +10 +0' "10 GCP offers (host + accelerator)"
expect 0 "compare on the GCP sheet" -- "$G" compare "${JOB[@]}" --sheet "$GCP" --gpu h100-sxm --region asia-south1 --tax-basis exclusive --format json
has out '"offer": "a3-highgpu-8g@asia-south1"' "the Mumbai a3-highgpu-8g"
has out '"rate_per_hour": 91.3457' "the whole instance: host 9.83846 + 8 x H100 81.50728 USD/h"
has err 'gcp: prices carry no date' "an undated sheet is flagged"
has out '"prices_stale": true' "stale in JSON"
has out '"country": "IN"' "the offer's country"

# SkyPilot's local cache, dated by the file.
mkdir -p "$TMP/home/.sky/catalogs/v8/gcp" "$TMP/home/.sky/catalogs/v7/gcp"
cp "$GCP" "$TMP/home/.sky/catalogs/v8/gcp/vms.csv"
touch -d 2026-01-02 "$TMP/home/.sky/catalogs/v8/gcp/vms.csv"
expect 0 "--sheet skypilot:gcp" -- env HOME="$TMP/home" "$G" compare "${JOB[@]}" --sheet skypilot:gcp --gpu h100-sxm --format json
has out '"prices_as_of": "2026-01-02"' "the cache's file date"
has err 'downloaded 2026-01-02' "the date is said"
has err 'days old' "an old cache is stale"
expect 2 "no cache for a cloud" -- env HOME="$TMP/home" "$G" compare "${JOB[@]}" --sheet skypilot:azure
has err 'sky show-gpus' "says how to get one"

# Country and region: AWS Mumbai is in India; --country IN on every sheet.
expect 0 "--region india" -- "$G" compare "${JOB[@]}" --region india --format json
has out '"region": "ap-south-1"' "AWS ap-south-1 under --region india"
expect 0 "--country IN" -- "$G" compare "${JOB[@]}" --country IN --format json
has out '"provider": "e2e"' "E2E (country IN)"
has out '"region": "ap-south-1"' "AWS Mumbai"
lacks out '"region": "us-east-1"' "no US offers"
expect 2 "bad --country" -- "$G" compare "${JOB[@]}" --country Narnia
has err "two-letter ISO code" "says what a country is"

# Tax: inclusive by default (E2E +18% GST), exclusive on request, input-tax credit.
expect 0 "tax inclusive" -- "$G" compare "${JOB[@]}" --provider e2e --format json
has out '"tax_included": true' "E2E's GST included"
expect 0 "tax exclusive" -- "$G" compare "${JOB[@]}" --provider e2e --tax-basis exclusive --format json
has out '"tax_included": false' "pre-tax"
has out '"tax": 0.0' "no tax in the breakdown"
expect 0 "input-tax credit" -- "$G" compare "${JOB[@]}" --provider e2e --input-tax-credit --format json
has out '"tax": 0.0' "GST recovered"
expect 0 "mixed bases warn" -- "$G" compare "${JOB[@]}" --country IN
has err 'totals mix bases' "sheets without a rate are named"
expect 2 "bad --tax-basis" -- "$G" compare "${JOB[@]}" --tax-basis gross
expect 0 "--stale-after 1" -- "$G" compare "${JOB[@]}" --provider e2e --stale-after 1
has out 'e2e!' "marked in the table"
# Every command that prices offers warns the same way: the owner's side of buy-vs-rent, replay
# and advise prices its rent on sheets too (one function, price_warnings, words and all).
expect 0 "compare: one stale sheet" -- "$G" compare "${JOB[@]}" --provider runpod --stale-after 1
stale=$(grep -o 'runpod: prices dated [^;]*' "$TMP/err" | head -1)
has err 'runpod: prices dated' "compare names the stale runpod sheet"
for c in "buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300" \
         "replay $1/fixtures/jobs.csv --gpu rtx-4090 --owned 0,4 --max-p95-queue 4h" \
         "advise --gpu rtx-4090 --answers $1/fixtures/advise_answers.yaml"; do
  # shellcheck disable=SC2086
  expect 0 "${c%% *} warns of stale sheets" -- "$G" $c --provider runpod --stale-after 1 --format json
  grep -qF -- "gpuplan: warning: $stale" "$TMP/err" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: ${c%% *}: not compare's words"; }
  has out '"warnings": \[' "${c%% *}: and in its JSON"
done

# plan prices on-demand (and reserved) unless --pricings names spot (issue 15.8).
expect 0 "plan default pricings" -- "$G" plan --model llama-3.1-8b --tokens 500M --global-batch 64 --format json
lacks out '"pricing": "spot"' "no spot unless asked"
expect 0 "plan with spot" -- "$G" plan --model llama-3.1-8b --tokens 500M --global-batch 64 --pricings spot --format json
has out '"pricing": "spot"' "spot when asked"

# Instruct names resolve to the base model.
expect 0 "instruct name" -- "$G" estimate --model Meta-Llama-3.1-8B-Instruct --method lora --format json
has out '"id": "llama-3.1-8b"' "the base model"
finish

#!/usr/bin/env bash
# End-to-end checks of `gpuplan serve` on the made-up round-number sheet
# (tests/fixtures/price_sheet_hourly.yaml) and on the shipped catalogs.
# Usage: GPUPLAN=path/to/gpuplan serve_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SHEET="$1/fixtures/price_sheet_hourly.yaml"
ONE=(--model llama-3.1-8b --catalog "$SHEET" --provider hourly-cloud)

# The contract keys, per offer row.
expect 0 "serve json" -- "$G" serve "${ONE[@]}" --requests-per-second 0.1 --format json
has out '"schema_version": 1' "schema_version"
for key in replicas tokens_per_second_per_gpu max_concurrent_sequences cost_per_million_output_tokens cost_per_request meets_latency \
  ttft_p95_seconds tpot_seconds utilization cost_per_month; do
  has out "\"$key\": " "offer rows carry $key"
done
has out '"routes": \[' "routes summary"
has out '"combined": \{' "combined cost"
# One 1-GPU replica all month: 730 h x 2 USD; one replica on the 8-GPU instance pays for 8.
has out '"cost_per_month": 1460.0' "730 hours at 2 USD"
has out '"cost_per_month": 8760.0' "a whole 8-GPU instance at 1.5 USD"
has out '"replicas": 1,' "one replica is enough"
has out '"utilization": 0.0[0-9]' "low traffic: mostly idle"

# Idle capacity is priced in: a tenth of the traffic costs about ten times more per token.
expect 0 "busier" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --format json
has out '"cost_per_million_output_tokens": 2.17013' "1460 USD over 1 req/s x 256 tokens a month"

# Table: the cheapest offers, the roofline with its knee, the idle-capacity note.
expect 0 "serve table" -- "$G" serve "${ONE[@]}" --requests-per-second 0.1
has out '/1M out' "cost per million output tokens column"
has out 'Decode roofline on test-gpu \(knee at batch [0-9]+\)' "roofline with the knee"
has out 'memory' "memory-bound rows"
has out 'compute' "compute-bound rows"
has out 'idle capacity' "idle-capacity note"

# Latency targets: a tight TPOT shrinks the batch; an impossible one exits 1.
expect 0 "tpot target" -- "$G" serve "${ONE[@]}" --requests-per-second 0.1 --tpot 15ms --ttft-p95 1s --format json
has out '"meets_latency": true' "meets the targets"
has out '"tpot_target_seconds": 0.015' "target echoed"
expect 1 "impossible tpot" -- "$G" serve "${ONE[@]}" --requests-per-second 0.1 --tpot 1ms
has out 'no offer meets the latency target: TPOT at batch 1' "says which target"
expect 1 "impossible ttft" -- "$G" serve "${ONE[@]}" --requests-per-second 0.1 --ttft-p95 1ms
has out 'TTFT with no queue' "TTFT reason"

# Replicas grow with traffic.
expect 0 "heavy traffic" -- "$G" serve "${ONE[@]}" --requests-per-second 50 --tpot 30ms --format json
has out '"replicas": ([2-9]|[1-9][0-9]+),' "several replicas"

# Quantisation: the accuracy caveat is printed.
expect 0 "int4" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --quant int4-awq
has out 'quality must be checked on your own evaluation set' "quantisation caveat"
expect 0 "fp8 kv" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --kv-cache-dtype fp8 --format json
has out '"kv_cache_dtype": "fp8"' "kv dtype echoed"

# Currency and tax: the rupee sheet's 100 INR/h + 18% GST, all month.
expect 0 "INR" -- "$G" serve --model llama-3.1-8b --catalog "$SHEET" --provider rupee-cloud --requests-per-second 0.1 --currency INR --format json
has out '"currency": "INR"' "display currency"
has out '"cost_per_month": 86140.0' "118 INR x 730 h"

# Scale to zero: per-second billing pays for on-periods only; cold starts show in TTFT.
expect 0 "scale to zero" -- "$G" serve --model llama-3.1-8b --catalog "$SHEET" --provider rupee-cloud --requests-per-day 24 \
  --currency INR --scale-to-zero --format json
has out '"scaling": "scale-to-zero"' "scaling echoed"
has out '"cold_start_request_share": 0\.9' "almost every request is cold at 1 an hour"
has out '"cost_per_month": [0-9]{4}\.' "thousands of INR, not 86140"
expect 0 "per-day note" -- "$G" serve --model llama-3.1-8b --catalog "$SHEET" --provider rupee-cloud --requests-per-day 24
has out 'give --peak-factor' "per-day rate without a peak factor is flagged"
expect 0 "autoscale" -- "$G" serve "${ONE[@]}" --requests-per-second 0.1 --min-replicas 1 --format json
has out '"scaling": "autoscale"' "autoscale with a floor"

# Static batching reserves whole sequences and pays for padding.
expect 0 "static" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --batching static --max-output-tokens 1024 --format json
has out '"batching": "static"' "static echoed"

# Routing: 70/30 across two models, each priced, the total combined.
expect 0 "route" -- "$G" serve --route small=llama-3.2-1b:70%,large=llama-3.1-8b --catalog "$SHEET" --provider hourly-cloud \
  --requests-per-second 1 --format json
has out '"route": "small"' "small route"
has out '"route": "large"' "large route"
has out '"share": 0.3' "the rest goes to the route without a share"
expect 0 "route table" -- "$G" serve --route small=llama-3.2-1b:70%,large=llama-3.1-8b --catalog "$SHEET" --provider hourly-cloud \
  --requests-per-second 1
has out 'Route small \(70%\)' "route titles"
has out 'routed total' "combined line"

# A CPU box from flags is priced beside the GPUs.
expect 0 "cpu box" -- "$G" serve --model qwen2.5-0.5b --catalog "$SHEET" --provider hourly-cloud --requests-per-second 1 \
  --cpu-memory 64GB --cpu-memory-bandwidth 200GB --cpu-tflops 4 --cpu-price-per-hour 0.40 --format json
has out '"provider": "cpu-box"' "cpu row"

# Nothing fits: exit 1, --explain says why.
expect 1 "nothing fits" -- "$G" serve --model llama-3.1-405b --catalog "$SHEET" --provider hourly-cloud --requests-per-second 1 --explain
has out 'Excluded offers' "exclusions listed"
has out 'usable per GPU' "the memory reason"

# The shipped catalogs: the issue's example runs and names real offers.
expect 0 "shipped example" -- "$G" serve --model llama-3.1-8b --requests-per-second 5 --prompt-tokens 512 --output-tokens 256 \
  --quant int4-awq --tpot 50ms --ttft-p95 500ms --format json
has out '"meets_latency": true' "something meets the targets"

# Overload (issue 15.9): ten million requests a second is beyond any sane fleet. No row is
# priced at over 100% utilisation or marked ok, no count overflows, and the answer says why.
expect 1 "overload" -- "$G" serve "${ONE[@]}" --requests-per-second 10000000 --format json
lacks out '"meets_latency": true' "nothing meets the target"
lacks out '"gpus_billed": -' "no negative GPU count"
lacks out '"utilization": ([1-9][0-9]*\.|1\.0*[1-9])' "no utilisation above 100%"
has out 'beyond any sane fleet' "the limit is named"
expect 1 "overload table" -- "$G" serve "${ONE[@]}" --requests-per-second 10000000 --explain
has out 'beyond any sane fleet' "the note says the traffic is beyond any fleet"
lacks out ' yes ' "no row marked ok"
# Heavy but possible: priced, every replica within the 90% cap.
expect 0 "heavy" -- "$G" serve "${ONE[@]}" --requests-per-second 2000 --format json
has out '"gpus_billed": [0-9]+' "GPUs billed"
lacks out '"utilization": 0\.9[1-9]' "utilisation within the cap"

# Bad input exits 2 naming the flag.
expect 2 "negative rate" -- "$G" serve "${ONE[@]}" --requests-per-second -5
has err "field '--requests-per-second'" "rate flag named"
expect 2 "zero rate" -- "$G" serve "${ONE[@]}" --requests-per-second 0
expect 2 "no rate" -- "$G" serve "${ONE[@]}"
has err "give one of --requests-per-second or --requests-per-day" "rate required"
expect 2 "two rates" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --requests-per-day 100
expect 2 "zero output" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --output-tokens 0
has err "field '--output-tokens'" "output flag named"
expect 2 "zero prompt" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --prompt-tokens 0
expect 2 "prefix too long" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --prompt-tokens 100 --shared-prefix-tokens 100
expect 2 "unknown quant" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --quant int4-aw
has err "field '--quant'.*did you mean 'int4-awq'" "quant suggestion"
expect 2 "unknown batching" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --batching dynamic
expect 2 "bad tpot" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --tpot 50
has err "field '--tpot'" "tpot flag named"
expect 2 "peak below 1" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --peak-factor 0.5
expect 2 "route shares" -- "$G" serve --route a=llama-3.2-1b:70%,b=llama-3.1-8b:20% --requests-per-second 1
has err "shares sum to 90.0%, expected 100%" "shares must sum to 100%"
expect 2 "route over" -- "$G" serve --route a=llama-3.2-1b:70%,b=llama-3.1-8b:40% --requests-per-second 1
expect 2 "route two open" -- "$G" serve --route a=llama-3.2-1b,b=llama-3.1-8b --requests-per-second 1
expect 2 "route and model" -- "$G" serve --model gpt2 --route a=llama-3.2-1b:50%,b=llama-3.1-8b --requests-per-second 1
expect 2 "route bad model" -- "$G" serve --route a=llama-3.2-1c:50%,b=llama-3.1-8b --requests-per-second 1
has err "unknown model 'llama-3.2-1c'" "route model lookup"
expect 2 "partial cpu" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --cpu-memory 64GB
expect 2 "zero to zero" -- "$G" serve "${ONE[@]}" --requests-per-second 1 --scale-to-zero --min-replicas 2

finish

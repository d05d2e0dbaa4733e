#!/usr/bin/env python3
"""Writes a 1,000,000-row SkyPilot vms.csv in AWS's column layout (issue 18: "a 1M-row SkyPilot
CSV takes 24 s and 4.9 GB"): 2,000 GPU instance types x 50 regions x 10 zones, a quoted GpuInfo
in every row, each region's zones with different spot prices (100,000 offers). With --distinct
every row is its own offer (the zone is the region): the import's worst case, 1,000,000 offers.
Usage: skypilot_1m.py OUT.csv [--distinct]"""
import sys

DISTINCT = "--distinct" in sys.argv[2:]

GPUS = ["H100", "A100", "L4", "T4", "A10G", "H200", "L40S", "V100"]
out = open(sys.argv[1], "w")
out.write("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n")
rows = 0
for t in range(2000):
    gpu = GPUS[t % len(GPUS)]
    count = [1, 2, 4, 8][t % 4]
    info = '"{\'Gpus\': [{\'Name\': \'%s\', \'Count\': %d, \'MemoryInfo\': {\'SizeInMiB\': 81920}}]}"' % (gpu, count)
    for r in range(50):
        for z in range(10):
            price = 1.0 + count * (2 + (t % 7) * 0.5)
            spot = price * (0.2 + 0.05 * z)
            region = "reg-%d-az%d" % (r, z) if DISTINCT else "reg-%d" % r
            out.write("x%d.%dxlarge,%s,%d,%d.0,%d.0,%s,%.4f,%.6f,%s,reg-%d-az%d,x86_64\n" %
                      (t, count, gpu, count, 8 * count, 64 * count, info, price, spot, region, r, z))
            rows += 1
assert rows == 1_000_000

#!/usr/bin/env python3
"""The NEON kernels' step loops, counted from the disassembly (make
bench-neon): instructions per 64 elements of each loop beside those of the
x86 AVX-512 level's kernel for the same pair, and llvm-mca's estimate of
the NEON loop's cycles on Arm server cores. Nothing here runs a kernel:
NEON cannot be timed on this machine.

Usage: neon_loops.py AARCH64_LIB X86_LIB OUT.md

Both libraries are built with Rust's v0 symbol mangling, whose names carry
the generic arguments (the kernel's lanes, source and destination), so that
each pair's loop is found by name. A kernel's step loop is its function's
first backward branch that calls nothing (`lanes::each`'s whole steps come
first)."""

import re
import subprocess
import sys

# llvm-mca's models of Arm server cores (LLVM 19), and whether they have
# FEAT_BF16: Neoverse N1 (AWS Graviton2, Ampere Altra; no BF16, so the
# BFCVTN loops never run there), V1 (Graviton3), V2 (Graviton4, NVIDIA
# Grace).
MCA = "llvm-mca-19"
CORES = [("neoverse-n1", False), ("neoverse-v1", True), ("neoverse-v2", True)]

Q, F16C, BFC = "aarch64::neon::Quad", "aarch64::neon::F16Codes", "aarch64::neon::Bf16Codes"
TWO, FOUR, CODES = "[__m512i; 2]", "[__m256i; 4]", "__m512i"


def neon(lanes, s, d):
    return f"aarch64::neon::run::<{lanes}, {s}, {d}, false>"


def steps(lanes, s, d):
    return f"x86::avx512::steps::run::<{lanes}, {s}, {d}, false>"


def avx2(s, d):
    return f"x86::avx2::run::<{FOUR}, {s}, {d}, false>"


# (pair, NEON rule, NEON loop, elements a NEON loop turn, x86 AVX-512 rule,
# x86 loop, elements an x86 loop turn). The x86 kernels are those of a CPU
# with AVX512-VBMI and AVX512-BF16 (docs/kernels.txt); elements a turn:
# lanes::steps' STEP * UNROLL (AVX-512 lanes 2 x 32, AVX2's 1 x 32;
# run_bf16 one step of 32 a turn), the `each` step of the whole kernels
# (narrow_bytes 2 x 64, the others 64), as the loops' loads confirm.
L = "lanes::"
ROWS = [
    ("float32 -> float16", "lanes", neon(Q, L + "F32In", L + "F16Out"), 32,
     "avx2.lanes.f32_f16", avx2(L + "F32In", L + "F16Out"), 32),
    ("float16 -> float32", "lanes", neon(Q, L + "F16In", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "F16In", L + "F32Out"), 64),
    ("float32 -> bfloat16", "lanes.bfcvtn", neon(Q, L + "F32In", "aarch64::neon::Bf16Cvt"), 32,
     "lanes.bf16ne", "x86::avx512::steps::run_bf16::<lanes::F32In, true, false>", 32),
    ("float32 -> bfloat16, no BF16", "lanes", neon(Q, L + "F32In", L + "Bf16Out"), 32,
     "lanes", steps(TWO, L + "F32In", L + "Bf16Out"), 64),
    ("bfloat16 -> float32", "lanes", neon(Q, L + "Bf16In<true>", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "Bf16In<true>", L + "F32Out"), 64),
    ("float32 -> float64", "lanes", neon(Q, L + "F32In", L + "F64Out"), 32,
     "avx2.lanes", avx2(L + "F32In", L + "F64Out"), 32),
    ("float32 -> float8_e4m3fn", "lanes", neon(Q, L + "F32In", "aarch64::neon::Narrow16<0>"), 32,
     "narrow_bytes", "x86::avx512::narrow_bytes::<x86::avx512::E4m3, 1, false>", 128),
    ("float32 -> float8_e5m2", "lanes", neon(Q, L + "F32In", "aarch64::neon::Narrow16<1>"), 32,
     "to_narrow", "x86::avx512::to_narrow::<x86::avx512::E5m2, false>", 64),
    ("float32 -> float4_e2m1fn", "lanes", neon(Q, L + "F32In", "aarch64::neon::Narrow16<2>"), 32,
     "narrow_bytes", "x86::avx512::lookup::to_e2m1::<1, false>", 64),
    ("float16 -> float8_e4m3fn", "lanes", neon(Q, L + "F16In", "aarch64::neon::Narrow16<0>"), 32,
     "narrow_bytes.16", "x86::avx512::narrow_bytes::<x86::avx512::E4m3, 2, false>", 128),
    ("float16 -> float8_e5m2", "lanes.codes16", neon(F16C, L + "F16In", L + "NarrowOut<1>"), 32,
     "lanes.codes16.shift", steps(CODES, L + "F16In", L + "NarrowOut<1>"), 64),
    ("bfloat16 -> float8_e4m3fn", "lanes",
     neon(Q, L + "Bf16In<false>", "aarch64::neon::Narrow16<0>"), 32,
     "narrow_bytes.16", "x86::avx512::narrow_bytes::<x86::avx512::E4m3, 3, false>", 128),
    ("float64 -> float32", "lanes", neon(Q, L + "F64Near", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "F64Near", L + "F32Out"), 64),
    ("float64 -> float16", "lanes", neon(Q, "aarch64::neon::ToOdd", L + "F16Out"), 32,
     "lanes", steps(TWO, L + "F64Fold<29>", L + "F16Out"), 64),
    ("float64 -> bfloat16", "lanes.bfcvtn",
     neon(Q, "aarch64::neon::ToOdd", "aarch64::neon::Bf16Cvt"), 32,
     "lanes.bf16ne", "x86::avx512::steps::run_bf16::<lanes::F64Fold<40>, true, false>", 32),
    ("float64 -> float8_e4m3fn", "lanes",
     neon(Q, "aarch64::neon::ToOdd", "aarch64::neon::Narrow16<0>"), 32,
     "narrow_bytes", "x86::avx512::narrow_bytes::<x86::avx512::E4m3, 0, false>", 128),
    ("float64 -> float4_e2m1fn", "lanes",
     neon(Q, "aarch64::neon::ToOdd", "aarch64::neon::Narrow16<2>"), 32,
     "narrow_bytes", "x86::avx512::lookup::to_e2m1::<0, false>", 64),
    ("float8_e4m3fn -> float32", "lanes", neon(Q, L + "E4m3In", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "E4m3In", L + "F32Out"), 64),
    ("float8_e5m2 -> float32", "lanes", neon(Q, L + "E5m2In", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "E5m2In", L + "F32Out"), 64),
    ("float4_e2m1fn -> float32", "lanes", neon(Q, L + "E2m1In", L + "F32Out"), 32,
     "lookup.widen4", "x86::avx512::lookup::widen4::<6, 1, false>", 64),
    ("float8_e4m3fn -> float16", "lanes.codes16", neon(F16C, L + "E4m3In", L + "F16Out"), 32,
     "lookup", "x86::avx512::lookup::bytes::<2, false>", 64),
    ("float8_e5m2 -> float16", "lanes.codes16", neon(F16C, L + "E5m2In", L + "F16Out"), 32,
     "lanes.codes16.shift", steps(CODES, L + "E5m2In", L + "F16Out"), 64),
    ("float8_e4m3fn -> bfloat16", "lanes.bf16codes", neon(BFC, L + "E4m3In", L + "Bf16Out"), 32,
     "lookup", "x86::avx512::lookup::bytes::<3, false>", 64),
    ("float4_e2m1fn -> bfloat16", "lanes.bf16codes", neon(BFC, L + "E2m1In", L + "Bf16Out"), 32,
     "lookup.widen4", "x86::avx512::lookup::widen4::<6, 3, false>", 64),
    ("float8_e4m3fn -> float64", "lanes", neon(Q, L + "E4m3In", L + "F64Out"), 32,
     "lanes", steps(TWO, L + "E4m3In", L + "F64Out"), 64),
    ("int8 -> float32", "lanes", neon(Q, L + "I8In<true>", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "I8In<true>", L + "F32Out"), 64),
    ("uint8 -> float32", "lanes", neon(Q, L + "I8In<false>", L + "F32Out"), 32,
     "lanes", steps(TWO, L + "I8In<false>", L + "F32Out"), 64),
    ("float32 -> int8", "lanes", neon(Q, L + "F32In", L + "IntOut<-128, 127, 8>"), 32,
     "lanes", steps(TWO, L + "F32In", L + "IntOut<-128, 127, 8>"), 64),
    ("float32 -> uint8", "lanes", neon(Q, L + "F32In", L + "IntOut<0, 255, 8>"), 32,
     "lanes", steps(TWO, L + "F32In", L + "IntOut<0, 255, 8>"), 64),
]

BRANCH = re.compile(r"(b\.\w+|b|cbn?z|tbn?z|j\w+)\s.*?\b([0-9a-f]+) <")


def functions(objdump, lib):
    """Each function's instructions (address, text), by its name with the
    crate and core paths dropped."""
    out = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", lib], check=True,
                         capture_output=True, text=True).stdout
    funcs = {}
    for block in out.split("\n\n"):
        lines = block.strip().split("\n")
        m = re.match(r"[0-9a-f]+ <(.*)>:$", lines[0])
        if not m:
            continue
        name = re.sub(r"nx_dtype::kernels::|core::core_arch::\w+::", "", m.group(1))
        ins = []
        for line in lines[1:]:
            m = re.match(r"\s*([0-9a-f]+):\s+(.*)$", line)
            if m:
                ins.append((int(m.group(1), 16), m.group(2).split("//")[0].split("#!")[0].strip()))
        funcs[name] = ins
    return funcs


def first_loop(ins):
    """One turn of the function's first loop that calls nothing (not a
    table's one-time initialization): the instructions from the first
    backward branch's target to it, as the common path runs them. A forward
    branch out of that range into a block that jumps straight back (a
    common case placed out of line, such as AVX512-BF16's conversion past
    its check for subnormals) is followed; the range's own instructions
    that it skips are not counted."""
    at = {a: i for i, (a, _) in enumerate(ins)}
    for addr, text in ins:
        m = BRANCH.match(text)
        if not (m and int(m.group(2), 16) < addr):
            continue
        head = int(m.group(2), 16)
        turn, i = [], at[head]
        while True:
            a, t = ins[i]
            turn.append(t)
            if a == addr or len(turn) > 2000:
                break
            b = BRANCH.match(t)
            back = detour(ins, at, b, head, addr) if b else None
            if back is not None:
                turn.extend(back[0])
                i = at[back[1]]
            else:
                i += 1
        if not any(re.match(r"(bl|call)\b", t) for t in turn):
            return turn
    raise SystemExit("no loop")


def detour(ins, at, b, head, latch):
    """For a branch `b` out of [head, latch] to a block that ends in an
    unconditional jump back into it: (the block, where it jumps)."""
    target = int(b.group(2), 16)
    if head <= target <= latch or target not in at:
        return None
    block = []
    for a, t in ins[at[target]:at[target] + 64]:
        block.append(t)
        m = BRANCH.match(t)
        if m:
            back = int(m.group(2), 16)
            uncond = m.group(1) in ("b", "jmp")
            return (block, back) if uncond and head <= back <= latch else None
        if re.match(r"(ret|bl|call)\b", t):
            return None
    return None


def mca(body, core):
    """llvm-mca's cycles a loop turn on `core`, from 200 turns."""
    text = "loop:\n" + "\n".join(BRANCH.sub(lambda m: m.group(1) + " loop #", t).split(" #")[0]
                                 if BRANCH.match(t) else t for t in body) + "\n"
    out = subprocess.run([MCA, "-mtriple=aarch64", f"-mcpu={core}", "-iterations=200"],
                         input=text, check=True, capture_output=True, text=True).stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))
    return cycles / 200


def main():
    a64 = functions("aarch64-linux-gnu-objdump", sys.argv[1])
    x86 = functions("objdump", sys.argv[2])
    rows = []
    for pair, nrule, nfn, nel, xrule, xfn, xel in ROWS:
        for f, lib in ((nfn, a64), (xfn, x86)):
            if f not in lib:
                raise SystemExit(f"{pair}: no function {f}")
        body = first_loop(a64[nfn])
        n = len(body) * 64 / nel
        est = [f"{mca(body, c) * 64 / nel:.0f}" if bf16 or "bfcvtn" not in " ".join(body)
               else "-" for c, bf16 in CORES]
        x = len(first_loop(x86[xfn])) * 64 / xel
        rows.append(f"| {pair} | {nrule} | {n:.0f} | " + " | ".join(est)
                    + f" | {xrule} | {x:.0f} | {n / x:.1f} |")
    head = "| pair | neon rule | NEON instructions / 64 | " + " | ".join(
        f"{c} cycles / 64 (estimate)" for c, _ in CORES) + \
        " | x86 AVX-512 rule | x86 instructions / 64 | NEON / x86 |"
    table = "\n".join([head, "|" + "---|" * (len(CORES) + 6)] + rows)
    with open(sys.argv[3], "w") as f:
        f.write(PAGE.format(table=table))
    print(f"{sys.argv[3]}: {len(rows)} pairs")


PAGE = """\
# NEON kernels: instructions and estimated cycles

Written by `make bench-neon` (`bench/neon_loops.py`). NEON cannot be timed
on the x86-64 machine this project is tested on, so each NEON kernel's step
loop is counted in the disassembly of the aarch64 build
(`aarch64-linux-gnu-objdump -d`): its instructions per 64 elements, beside
those of the loop that runs the same pair at the x86 `avx512` level (on a
CPU with AVX512-VBMI and AVX512-BF16, the first rule of
`docs/kernels.txt`). The cycle columns are **estimates**, not measurements:
llvm-mca (LLVM 19) simulating 200 turns of the NEON loop, from L1, on its
models of Arm Neoverse N1 (AWS Graviton2, Ampere Altra), V1 (Graviton3)
and V2 (Graviton4, NVIDIA Grace); "-" where the core lacks the loop's
instructions (BFCVTN on Neoverse N1, which runs the "no BF16" row).

Every NEON loop converts 32 elements a turn in 128-bit vectors; the
AVX-512 loops 64 or 128 in 512-bit ones, so about four times the NEON
instructions is parity of work per instruction. A loop turn's count
includes its loads, stores and loop control.

{table}

How to read it:

- float32 -> float16 and back, float64 -> float32, and bfloat16 through
  BFCVTN are one conversion instruction per four elements: the loop is
  loads, conversions and stores.
- The float8 and float4 encoders (`Narrow16`) fold the sticky bit,
  convert to float16 toward zero and round in the float16 codes: about
  3.5 instructions an element. The AVX-512 level has byte-lane kernels
  (AVX512-VBMI) with no NEON counterpart in 128-bit vectors.
- The float8 and float4 decoders are table lookups (TBL, TBX over 128-byte
  tables of the magnitudes' codes, kept in registers across the loop).
- Without FEAT_BF16 (Neoverse N1, Cortex-A76) float32 -> bfloat16 rounds
  in the integers, as the x86 `lanes` rule does without AVX512-BF16.
"""

if __name__ == "__main__":
    main()

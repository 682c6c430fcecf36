#!/usr/bin/env python3
"""Writes synthetic-64.tra.bz2, the small synthetic netrace v1 trace that
scenarios/trace-mesh-8x8.toml replays, with a fixed seed: the same bytes on every run.

    python3 scenarios/traces/make_synthetic.py    # from the repository root

64 nodes run 8 phases separated by barriers. In a phase each node misses 3 times in a row: a
ReadReq (8 bytes) to a random other node (its home), answered 20 trace cycles later by a
ReadResp (72 bytes) that depends on the request; the node's next request depends on that reply
(one miss outstanding) and is issued 5 to 40 cycles after it. After its last reply each node
1..63 sends an 8-byte arrival (UpgradeReq) to node 0; node 0 answers every node with an 8-byte
release (UpgradeResp) that depends on all 63 arrivals and on node 0's own last reply, and each
node's next phase starts with a request that depends on its release (node 0's on the 63
arrivals). The file follows netrace v1's layout (netrace.c's nt_dump_header and
nt_dump_packet on a 64-bit little-endian build): a 72-byte header, the notes, one region
header, then the packets in cycle order, each listing the later packets that depend on it.
"""

import bz2
import random
import struct

NODES = 64
PHASES = 8
MISSES = 3
READ_REQ, READ_RESP, UPGRADE_REQ, UPGRADE_RESP = 1, 2, 13, 14


def trace(seed=1):
    rng = random.Random(seed)
    packets = []  # [cycle, type, src, dst, [indices of the packets it depends on]]

    def add(cycle, kind, src, dst, deps):
        packets.append([cycle, kind, src, dst, deps])
        return len(packets) - 1

    start = {n: (0, []) for n in range(NODES)}  # each node's next cycle and dependencies
    for _ in range(PHASES):
        last_reply = {}
        for n in range(NODES):
            cycle, deps = start[n]
            cycle += rng.randrange(0, 40)
            for _ in range(MISSES):
                home = rng.choice([h for h in range(NODES) if h != n])
                req = add(cycle, READ_REQ, n, home, deps)
                reply = add(cycle + 20, READ_RESP, home, n, [req])
                cycle += 20 + rng.randrange(5, 41)
                deps = [reply]
            last_reply[n] = (cycle, reply)
        arrive = max(c for c, _ in last_reply.values())
        arrivals = [add(arrive, UPGRADE_REQ, n, 0, [last_reply[n][1]]) for n in range(1, NODES)]
        release = arrive + 10
        for n in range(1, NODES):
            r = add(release, UPGRADE_RESP, 0, n, arrivals + [last_reply[0][1]])
            start[n] = (release + 10, [r])
        start[0] = (release + 10, list(arrivals))
    return packets


def netrace(packets):
    order = sorted(range(len(packets)), key=lambda i: (packets[i][0], i))
    new_id = {old: new for new, old in enumerate(order)}
    waiting = {i: [] for i in range(len(packets))}
    for i, p in enumerate(packets):
        for d in p[4]:
            waiting[d].append(new_id[i])
    notes = b"flitsim scenarios/traces/make_synthetic.py, seed 1\0"
    cycles = max(p[0] for p in packets) + 1
    head = struct.pack("<If30sBBQQII8x", 0x484A5455, 1.0, b"synthetic-64", NODES, 0,
                       cycles, len(packets), len(notes), 1)
    region = struct.pack("<QQQ", 0, cycles, len(packets))
    body = bytearray()
    for old in order:
        cycle, kind, src, dst, _ = packets[old]
        deps = sorted(waiting[old])
        assert all(d > new_id[old] for d in deps)
        body += struct.pack("<QIIBBBBB", cycle, new_id[old], 0, kind, src, dst, 0, len(deps))
        body += struct.pack("<%dI" % len(deps), *deps)
    return head + notes + region + bytes(body)


if __name__ == "__main__":
    import os
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synthetic-64.tra.bz2")
    with open(out, "wb") as f:
        f.write(bz2.compress(netrace(trace()), 9))

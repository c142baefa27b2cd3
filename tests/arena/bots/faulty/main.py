"""A test bot that plays the first legal action until its configured fault.

config.json next to this file: {"fault": KIND, "at": N} — misbehave on the
N-th request (0 = the first), or at the start message when N is "start".
"prefer": [PREFIX, ...] plays the first legal action starting with the
first prefix that has one (a bot that never buys stalls the game).
KIND: none, timeout, crash, memory, illegal, protocol, garbage_utf8, huge,
slow (sleep "ms" then answer). Stdlib only, so it starts fast.
"""

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "config.json")) as f:
    CONFIG = json.load(f)
FAULT = CONFIG.get("fault", "none")
AT = CONFIG.get("at", 0)
PREFER = CONFIG.get("prefer", [])
out = sys.stdout.buffer


def misbehave():
    print(f"faulty: doing {FAULT} now", file=sys.stderr, flush=True)
    if FAULT == "timeout":
        time.sleep(3600)
    elif FAULT == "crash":
        raise RuntimeError("deliberate crash")
    elif FAULT == "memory":
        hog = b"x" * (4 << 30)  # 4 GiB, touched: an rlimit refuses it, a cgroup kills it
        print(len(hog))
    elif FAULT == "illegal":
        out.write(b'"no such action"\n')
    elif FAULT == "protocol":
        out.write(b'{"move": 1}\n')
    elif FAULT == "garbage_utf8":
        out.write(b'"\xff\xfe"\n')
    elif FAULT == "huge":
        out.write(b'"' + b"a" * (200 << 10) + b'"\n')
    out.flush()


requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        if AT == "start" and FAULT != "none":
            misbehave()
            continue
        out.write(b'"ready"\n')
    elif message["type"] == "request":
        if requests == AT and FAULT == "slow":
            time.sleep(CONFIG["ms"] / 1000)
        elif requests == AT and FAULT != "none":
            requests += 1
            misbehave()
            continue
        requests += 1
        legal = message["legal"]
        picks = [a for prefix in PREFER for a in legal if a.startswith(prefix)]
        reply = {"action": (picks or legal)[0], "note": f"request {requests}"}
        out.write(json.dumps(reply).encode() + b"\n")
    else:
        break
    out.flush()

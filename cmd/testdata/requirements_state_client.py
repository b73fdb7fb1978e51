"""A requirements state writer that locks <branch>.json the way the Python
requirements framework's current release does: each read-modify-write
holds an exclusive flock on the sidecar <branch>.lock (opened for append,
never deleted); the read takes a shared flock on the state file itself; the
write goes to a unique temp file in the same folder, is fsynced and
os.replace()d over the state file. Used by TestRequirementsStateWithPython.

usage: requirements_state_client.py STATEFILE REQUIREMENT STOPFILE

It satisfies REQUIREMENT for sessions py000000, py000001, ... one
read-modify-write at a time, a few milliseconds apart (as the framework's
hooks would), until STOPFILE exists (and at least 20 times), then prints
how many it wrote.
"""
import fcntl
import json
import os
import random
import sys
import tempfile
import time


def load(path):
    if not os.path.exists(path):
        return {"version": "1.0", "requirements": {}}
    with open(path) as f:
        fcntl.flock(f, fcntl.LOCK_SH)
        try:
            state = json.load(f)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    if state.get("version") != "1.0":
        print("state version changed:", state.get("version"), file=sys.stderr)
        return {"version": "1.0", "requirements": {}}
    return state


def save(path, state):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=os.path.basename(path) + ".", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(state, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    path, name, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    lock_path = os.path.splitext(path)[0] + ".lock"
    i = 0
    while not os.path.exists(stop) or i < 20:
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                state = load(path)
                req = state.setdefault("requirements", {}).setdefault(name, {})
                req["scope"] = "session"
                now = int(time.time())
                req.setdefault("sessions", {})["py%06d" % i] = {
                    "satisfied": True, "satisfied_at": now, "satisfied_by": "cli", "expires_at": None,
                }
                state["updated_at"] = now
                save(path, state)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        i += 1
        time.sleep(random.uniform(0.002, 0.02))
    print(i)


if __name__ == "__main__":
    main()

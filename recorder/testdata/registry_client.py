"""A registry writer that locks ~/.claude/sessions.json the way the Python
requirements framework does: a reader takes a shared flock on the registry
itself; a writer writes sessions.tmp under an exclusive flock on it, fsyncs
and renames it over the registry. Used by TestRegistryWithPython.

usage: registry_client.py REGISTRY PPID STOPFILE

It adds entries py00000, py00001, ... one read-modify-write at a time, a
few milliseconds apart (as the framework's hooks would), until STOPFILE
exists, then prints how many it added.
"""
import fcntl
import json
import os
import random
import sys
import time


def read(path):
    if not os.path.exists(path):
        return {"version": "1.0", "sessions": {}}
    try:
        with open(path) as f:
            fcntl.flock(f, fcntl.LOCK_SH)
            try:
                return json.load(f)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
    except (OSError, ValueError) as e:
        print("read error:", e, file=sys.stderr)
        return {"version": "1.0", "sessions": {}}


def write(path, data):
    tmp = os.path.splitext(path)[0] + ".tmp"
    with open(tmp, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            json.dump(data, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    os.rename(tmp, path)


def main():
    path, ppid, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    i = 0
    while not os.path.exists(stop) or i < 20:
        reg = read(path)
        reg.setdefault("sessions", {})["py%05d" % i] = {
            "pid": os.getpid(), "ppid": ppid, "project_dir": "/python",
            "branch": "main", "started_at": time.time(), "last_active": time.time(),
        }
        write(path, reg)
        i += 1
        time.sleep(random.uniform(0.002, 0.02))
    print(i)


main()

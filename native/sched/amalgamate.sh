#!/bin/sh
# Writes tl_sched.h as one file (stdout): every `#include "file"` line of tl_sched.h and
# of the files it names is replaced by that file's text, once, recursively; system
# includes stay. The result is the whole library in a single header (stb style), which
# is all a standalone regression test needs. Usage: sh amalgamate.sh tl_sched.h > out.h
set -eu

inline() {
  dir=$(dirname "$1")
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      '#include "'*'"')
        name=${line#'#include "'}
        name=${name%'"'}
        echo "/* ---- $name ---- */"
        (inline "$dir/$name")
        ;;
      *) printf '%s\n' "$line" ;;
    esac
  done < "$1"
}

inline "$1"

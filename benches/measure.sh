# Shared by the benchmarks: source it after setting `work` (a scratch directory) and
# `runs` (how many times each command runs). With `measure_keep_output=1`, each
# command's stdout of the last round is kept in $work/out-NAME.txt (to compare tools'
# outputs); otherwise it goes to /dev/null.

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure NAME...: runs the command in the array cmd_NAME of each NAME $runs times, the
# names in turn within each round, so that the file system's state weighs on every tool
# alike. "@R@" in a command is replaced by the round's number: each run writes a new
# output, and outputs are removed only after the measurements. On a journal-less ext4
# (this project's CI machines) each file created scans past the inodes deleted in the
# last minutes (the kernel's recently_deleted()), so deleting 648 chunk files before every
# run made file creation, the same kernel work for every tool, grow run after run until
# it was most of each tool's time. Sets t_NAME (median seconds) and m_NAME (peak RSS,
# MiB).
#
# Wall time is the shell's microsecond clock around the command alone (GNU time's %e has
# 10 ms steps, and GNU time's own fork and exec counted in every tool's time: a header
# dump of 6 ms measured 9 ms). Peak RSS comes from GNU time: a command whose earlier runs
# took a second or more (or that runs once) runs under it in its last round, where its
# few milliseconds do not count; any other gets one more run under it, not timed ("@R@"
# is "rss" there).
#
# With `measure_before=FUNCTION`, FUNCTION runs before each timed run, after the sync
# (to set the scene: another program's unwritten bytes, say).
#
# With `measure_warmup=1`, each command first runs once untimed ("@R@" is "warm"): on
# this project's virtual machines the first reads of a file written a moment before
# ran at half speed or less (a string dump 0.053 s, then 0.024-0.027 s; ncdump, busy
# formatting, barely moved), which a median of 3 runs still caught.
measure() {
    local name round
    for name in "$@"; do
        : > "$work/times-$name"
        rm -f "$work/peak-$name"
    done
    if [ -n "${measure_warmup:-}" ]; then
        for name in "$@"; do
            local -n argv="cmd_$name"
            "${argv[@]//@R@/warm}" >/dev/null
            unset -n argv
        done
    fi
    for round in $(seq "$runs"); do
        for name in "$@"; do
            local -n argv="cmd_$name"
            local out=/dev/null
            [ -n "${measure_keep_output:-}" ] && out="$work/out-$name.txt"
            local wrap=()
            if [ "$round" = "$runs" ] && { [ "$runs" = 1 ] || (($(echo "$(median < "$work/times-$name") >= 1" | bc -l))); }; then
                wrap=(/usr/bin/time -f '%M' -o "$work/peak-$name")
            fi
            # The last round's output is removed before the clock starts: opened over
            # it, the shell's truncation was timed with the tool (freeing the 199 MB of
            # a float dump's text took 32 ms, a seventh of nczdump's run).
            [ "$out" = /dev/null ] || rm -f "$out"
            # The last run's dirty pages are written back before this one starts, not
            # during it (on 2 cores the kernel's writeback takes a tool's CPU).
            sync
            [ -z "${measure_before:-}" ] || "$measure_before"
            local t0=$EPOCHREALTIME
            "${wrap[@]}" "${argv[@]//@R@/$round}" >"$out"
            local t1=$EPOCHREALTIME
            echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}' >> "$work/times-$name"
            unset -n argv
        done
    done
    for name in "$@"; do
        [ -f "$work/peak-$name" ] && continue
        local -n argv="cmd_$name"
        sync
        /usr/bin/time -f '%M' -o "$work/peak-$name" "${argv[@]//@R@/rss}" >/dev/null
        unset -n argv
    done
    for name in "$@"; do
        printf '  %s runs (s): %s\n' "$name" "$(tr '\n' ' ' < "$work/times-$name")" >&2
        printf -v "t_$name" '%s' "$(median < "$work/times-$name")"
        printf -v "m_$name" '%s' "$(($(cat "$work/peak-$name") / 1024))"
    done
}

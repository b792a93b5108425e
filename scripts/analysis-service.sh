# Sourced by the analysis benchmarks: starts this checkout's analysis service on a free port of
# loopback with `threads` analyses at once, logging to "$work/service.log", and sets `service`
# (its pid, for the caller's cleanup) and `url`.
start_analysis_service() {
    PYTHONPATH=analysis .build/analysis-venv/bin/python -m lightbox_analysis --port 0 --threads "$threads" \
        >"$work/service.log" 2>&1 &
    service=$!
    url=""
    for _ in $(seq 300); do
        url=$(grep -om1 'http://[0-9.:]*' "$work/service.log" || true)
        [ -n "$url" ] && return 0
        sleep 0.1
    done
    cat "$work/service.log" >&2
    return 1
}

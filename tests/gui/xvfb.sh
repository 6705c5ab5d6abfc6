# Sourced by the GUI scripts: start_xvfb WxHxD starts an X server on a display nobody holds
# (Xvfb picks it and says which: two tests started at once never share one) and waits until it
# answers. Sets DISPLAY and xvfb (its pid, for the caller's cleanup).
start_xvfb() {
  local said
  said=$(mktemp)
  Xvfb -displayfd 3 -screen 0 "$1" -nolisten tcp 3>"$said" >/dev/null 2>&1 &
  xvfb=$!
  for _ in $(seq 300); do
    [ -s "$said" ] && break
    kill -0 "$xvfb" 2>/dev/null || { rm -f "$said"; echo "Xvfb did not start" >&2; return 1; }
    sleep 0.1
  done
  [ -s "$said" ] || { rm -f "$said"; echo "Xvfb gave no display in 30 s" >&2; return 1; }
  export DISPLAY=":$(tr -d '[:space:]' <"$said")"
  rm -f "$said"
  for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "Xvfb on $DISPLAY does not answer" >&2
  return 1
}

# bench/lab-mode-settings.sh — sourced: the five 6.13 modes of the IRQ-suspension series as the lab
# runs them (bench/lab-modes.sh, bench/sim-vs-lab.sh, bench/trace-load.sh): the per-NAPI settings
# (irqmod napi set --dev veth-srv) and irqmod serve's flags, as bench/lab-modes.sh's header
# tabulates them (from the authors' scripts, docs/research/irq-suspend-modes.md 1.1);
# scenarios/lab/modes-*.toml set the same.

napi_settings() {  # mode -> irqmod napi set flags (serve's own loops: none)
  case $1 in
    base) echo "--defer-hard-irqs 0 --gro-flush-timeout 0 --irq-suspend-timeout 0" ;;
    defer | suspend) echo "--defer-hard-irqs 100 --gro-flush-timeout 20000 --irq-suspend-timeout $([[ $1 == suspend ]] && echo 20000000 || echo 0)" ;;
    napibusy) echo "--defer-hard-irqs 100 --gro-flush-timeout 200000 --irq-suspend-timeout 0" ;;
    fullbusy) echo "--defer-hard-irqs 100 --gro-flush-timeout 5000000 --irq-suspend-timeout 0" ;;
  esac
}
serve_flags() {  # mode -> irqmod serve flags
  local busy="--mode kernel-busy-poll --busy-poll-budget 64 --prefer-busy-poll on"
  case $1 in
    base | defer) echo "--mode epoll" ;;
    napibusy) echo "$busy --busy-poll-usecs 64" ;;
    suspend) echo "$busy --busy-poll-usecs 0" ;;
    fullbusy) echo "$busy --busy-poll-usecs 1000 --epoll-timeout 1" ;;
    *) echo "--mode $1" ;;  # serve's own loops
  esac
}

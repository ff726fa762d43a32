# A one-node Slurm cluster on localhost for the tests, sourced by tests/cluster/*.sh:
# munged, slurmctld and slurmd from Debian's munge and slurm-wlm, with every file
# (key, sockets, state, spool, logs) under one scratch folder, on ports of their own,
# started by slurm_start and stopped by slurm_stop (also on exit).
#
# The daemons run as root (slurmd must, to start jobs as their user): directly when
# the test runs as root, else through passwordless sudo. Jobs are submitted as the
# user running the test, with SLURM_CONF pointing at this cluster's configuration.

SLURM_DIR=""
SLURM_SUDO=""

slurm_have_tools() {
    local tool
    for tool in munged slurmctld slurmd sbatch squeue scancel sinfo; do
        command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null ||
            { echo "missing $tool (scripts/install-deps.sh installs munge and slurm-wlm)"; return 1; }
    done
    if [ "$(id -u)" -ne 0 ]; then
        sudo -n true 2>/dev/null || { echo "needs root or passwordless sudo to start slurmd"; return 1; }
        SLURM_SUDO="sudo -n"
    fi
}

# Stop the daemons whose pid files are in the folder; wait until they are gone.
slurm_stop() {
    [ -n "$SLURM_DIR" ] || return 0
    local pidfile pid tries
    for pidfile in "$SLURM_DIR"/slurmd.pid "$SLURM_DIR"/slurmctld.pid "$SLURM_DIR"/munged.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile" 2>/dev/null || true)
        [ -n "$pid" ] || continue
        $SLURM_SUDO kill "$pid" 2>/dev/null || true
        for ((tries = 0; tries < 50; tries++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        $SLURM_SUDO kill -9 "$pid" 2>/dev/null || true
    done
    SLURM_DIR=""
}

# slurm_start FOLDER: a running cluster with one idle node, or a message and status 1.
slurm_start() {
    SLURM_DIR=$1
    mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool"
    local sbin=/usr/sbin host port cpus tries state
    host=$(hostname -s)
    # Ports of our own, away from a real cluster's 6817/6818.
    port=$((20000 + $$ % 20000))
    cpus=$(nproc)
    head -c 1024 /dev/urandom >"$SLURM_DIR/munge.key"
    chmod 400 "$SLURM_DIR/munge.key"
    $SLURM_SUDO chown root "$SLURM_DIR/munge.key" 2>/dev/null || true
    $SLURM_SUDO "$sbin/munged" --key-file="$SLURM_DIR/munge.key" --socket="$SLURM_DIR/munge.sock" \
        --pid-file="$SLURM_DIR/munged.pid" --log-file="$SLURM_DIR/munged.log" \
        --seed-file="$SLURM_DIR/munged.seed" --force ||
        { echo "munged did not start"; cat "$SLURM_DIR/munged.log" 2>/dev/null; return 1; }
    cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=fxkit-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SLURM_DIR/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=5
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$SLURM_DIR/slurm.conf
    chmod 755 "$SLURM_DIR"
    $SLURM_SUDO env SLURM_CONF="$SLURM_CONF" "$sbin/slurmctld" -f "$SLURM_CONF" ||
        { echo "slurmctld did not start"; cat "$SLURM_DIR/slurmctld.log"; return 1; }
    $SLURM_SUDO env SLURM_CONF="$SLURM_CONF" "$sbin/slurmd" -f "$SLURM_CONF" -N "$host" ||
        { echo "slurmd did not start"; cat "$SLURM_DIR/slurmd.log"; return 1; }
    for ((tries = 0; tries < 300; tries++)); do
        state=$(sinfo -h -o %T 2>/dev/null || true)
        [ "$state" = idle ] && return 0
        sleep 0.1
    done
    echo "the node did not become idle (state '$state'); slurmctld.log:"
    tail -n 20 "$SLURM_DIR/slurmctld.log"
    tail -n 20 "$SLURM_DIR/slurmd.log"
    return 1
}

# Wait until no job of ours is queued or running (at most $1 seconds).
slurm_wait_idle() {
    local limit=$1 tries
    for ((tries = 0; tries < limit * 10; tries++)); do
        [ -z "$(squeue -h 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    return 1
}

# slurm_run SBATCH-ARGS…: submit, wait until the job is over (polling squeue: faster
# than sbatch --wait's back-off), and succeed only when every task exited with 0.
slurm_run() {
    local id
    id=$(sbatch --parsable "$@") || return 1
    id=${id%%;*}
    slurm_wait_idle 120 || { echo "job $id did not end"; return 1; }
    # Finished jobs stay known to slurmctld for MinJobAge (300 s by default).
    scontrol show job "$id" | grep -o 'ExitCode=[0-9:]*' >"$SLURM_DIR/exit-$id"
    [ -s "$SLURM_DIR/exit-$id" ] && ! grep -qv 'ExitCode=0:0' "$SLURM_DIR/exit-$id"
}

import Testing
@testable import juice_bench

/// The /proc readers behind the server's CPU and context-switch figures, on sample text
/// copied from a Linux 6 kernel (trimmed where the fields do not matter).
@Suite(.onOwnThreads) struct ProcTextTests {
    @Test func cpuTicksAreFields14And15EvenWhenTheNameHasSpacesAndParentheses() {
        let stat = "4242 (juice (a) b) S 1 4242 4242 0 -1 4194560 1234 0 0 0 731 205 0 0 20 0 6 0 9000 123456 789 "
            + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n"
        let ticks = ProcText.cpuTicks(stat: stat)
        #expect(ticks?.user == 731 && ticks?.system == 205)
        #expect(ProcText.cpuTicks(stat: "4242 (cut short) S 1 2 3") == nil)
        #expect(ProcText.cpuTicks(stat: "no parenthesis at all") == nil)
    }

    @Test func aThreadsStatusGivesItsNameAndBothKindsOfSwitch() {
        let status = """
            Name:\t-qos.overcommit
            Umask:\t0022
            State:\tS (sleeping)
            Tgid:\t4242
            Pid:\t4250
            VmRSS:\t   12345 kB
            Cpus_allowed_list:\t0-1
            voluntary_ctxt_switches:\t5821
            nonvoluntary_ctxt_switches:\t77

            """
        let read = ProcText.threadSwitches(status: status)
        #expect(read?.name == "-qos.overcommit" && read?.voluntary == 5821 && read?.involuntary == 77)
        // A kernel without the counters: no figure rather than a zero.
        #expect(ProcText.threadSwitches(status: "Name:\tx\nState:\tR (running)\n") == nil)
        #expect(ProcText.threadSwitches(status: "Name:\tx\nvoluntary_ctxt_switches:\tmany\nnonvoluntary_ctxt_switches:\t1\n") == nil)
    }

    @Test func schedstatsFirstFieldIsNanosecondsRun() {
        #expect(ProcText.runNanos(schedstat: "1843245911 57213456 9876\n") == 1_843_245_911)
        #expect(ProcText.runNanos(schedstat: "") == nil)
    }

    /// Port 7878 is 1EC6. Listening (state 0A) on 127.0.0.1 and on 0.0.0.0 count; an
    /// established connection to or from the port, another port, or another address do not.
    @Test func listeningInodesOfAPortOnLoopbackOrTheWildcard() {
        let tcp = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1EC6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0 100 0 0 10 0
               1: 00000000:1EC6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 222 1 0 100 0 0 10 0
               2: 0100007F:1EC6 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 333 1 0 20 4 30 10 -1
               3: 0100007F:1EC7 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 444 1 0 100 0 0 10 0
               4: 0500000A:1EC6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 555 1 0 100 0 0 10 0
            """
        #expect(ProcText.listeningInodes(netTCP: tcp, port: 7878) == [111, 222])
        #expect(ProcText.listeningInodes(netTCP: tcp, port: 7879) == [444])
        #expect(ProcText.listeningInodes(netTCP: tcp, port: 80).isEmpty)
        let tcp6 = """
              sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 00000000000000000000000001000000:1EC6 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 666 1 0 100 0 0 10 0
               1: 00000000000000000000000000000000:1EC6 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0 100 0 0 10 0
               2: 0000000000000000FFFF00000100007F:1EC6 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 888 1 0 100 0 0 10 0
               3: 20010DB8000000000000000000000001:1EC6 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0 100 0 0 10 0
            """
        #expect(ProcText.listeningInodes(netTCP: tcp6, port: 7878) == [666, 777, 888])
    }

    @Test func aDescriptorLinkNamesItsSocketInode() {
        #expect(ProcText.socketInode(link: "socket:[123456]") == 123_456)
        #expect(ProcText.socketInode(link: "pipe:[123456]") == nil)
        #expect(ProcText.socketInode(link: "/var/lib/juice/journal") == nil)
        #expect(ProcText.socketInode(link: "socket:[]") == nil)
    }

    /// Two samples of a process: thread 1 ran throughout, 2 and 3 are Dispatch workers sharing
    /// a name (3 started inside the window, so all it did counts), 4 ended inside the window
    /// (its switches are lost, and the usage says one thread ended).
    @Test func theUsageOverAWindowIsTheDifferenceSummedByThreadName() {
        func counters(_ name: String, _ voluntary: UInt64, _ involuntary: UInt64, _ run: UInt64?) -> ThreadCounters {
            ThreadCounters(name: name, voluntary: voluntary, involuntary: involuntary, runNanos: run)
        }
        let start = ServerSample(userTicks: 100, systemTicks: 50, threads: [
            1: counters("juice-server", 10, 1, 5_000), 2: counters("-qos.overcommit", 100, 20, 1_000_000),
            4: counters("journal", 7, 0, 300)])
        let end = ServerSample(userTicks: 350, systemTicks: 150, threads: [
            1: counters("juice-server", 10, 1, 5_000), 2: counters("-qos.overcommit", 400, 70, 2_500_000),
            3: counters("-qos.overcommit", 30, 5, 500_000)])
        let usage = ServerUsage(pid: 42, from: start, to: end, ticksPerSecond: 100)
        #expect(usage.userSeconds == 2.5 && usage.systemSeconds == 1 && usage.cpuSeconds == 3.5)
        #expect(usage.voluntarySwitches == 330 && usage.involuntarySwitches == 55 && usage.switches == 385)
        #expect(usage.threadsStarted == 1 && usage.threadsEnded == 1)
        #expect(usage.threadGroups.map(\.name) == ["-qos.overcommit", "juice-server"])
        let workers = usage.threadGroups[0]
        #expect(workers.threads == 2 && workers.threadsThatRan == 2 && workers.runNanos == 2_000_000)
        #expect(workers.voluntarySwitches == 330 && workers.involuntarySwitches == 55)
        #expect(usage.threadGroups[1].threads == 1 && usage.threadGroups[1].threadsThatRan == 0)

        // A thread without schedstat leaves its group's run time unknown, not short.
        var partial = end
        partial.threads[3]?.runNanos = nil
        #expect(ServerUsage(pid: 42, from: start, to: partial, ticksPerSecond: 100).threadGroups[0].runNanos == nil)
    }
}

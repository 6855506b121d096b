package transport

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// signalNames names the signals a server's exit may be reported with; Windows
// knows no others.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM",
	syscall.SIGTERM: "SIGTERM",
}

// newSysProcAttr starts a server as the leader of a new process group: the
// console's Ctrl-C does not reach it, and the stop sequence's CTRL_BREAK_EVENT
// (its SIGTERM) can.
func newSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// The kernel32 calls behind job objects and console control events, which the
// syscall package does not wrap.
var (
	kernel32                      = syscall.NewLazyDLL("kernel32.dll")
	procCreateJobObjectW          = kernel32.NewProc("CreateJobObjectW")
	procSetInformationJobObject   = kernel32.NewProc("SetInformationJobObject")
	procAssignProcessToJobObject  = kernel32.NewProc("AssignProcessToJobObject")
	procTerminateJobObject        = kernel32.NewProc("TerminateJobObject")
	procQueryInformationJobObject = kernel32.NewProc("QueryInformationJobObject")
	procGenerateConsoleCtrlEvent  = kernel32.NewProc("GenerateConsoleCtrlEvent")
)

// Constants of the Windows API (winnt.h, wincon.h).
const (
	processSetQuota                     = 0x0100 // PROCESS_SET_QUOTA
	jobObjectBasicAccountingInformation = 1      // JOBOBJECTINFOCLASS
	jobObjectExtendedLimitInformation   = 9      // JOBOBJECTINFOCLASS
	jobObjectLimitKillOnJobClose        = 0x2000 // JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	ctrlBreakEvent                      = 1      // CTRL_BREAK_EVENT
)

// jobBasicLimit is JOBOBJECT_BASIC_LIMIT_INFORMATION; Go's alignment of these
// fields is the C layout's on both 64-bit targets.
type jobBasicLimit struct {
	PerProcessUserTimeLimit int64
	PerJobUserTimeLimit     int64
	LimitFlags              uint32
	MinimumWorkingSetSize   uintptr
	MaximumWorkingSetSize   uintptr
	ActiveProcessLimit      uint32
	Affinity                uintptr
	PriorityClass           uint32
	SchedulingClass         uint32
}

// jobExtendedLimit is JOBOBJECT_EXTENDED_LIMIT_INFORMATION.
type jobExtendedLimit struct {
	BasicLimitInformation jobBasicLimit
	IoInfo                [6]uint64 // IO_COUNTERS
	ProcessMemoryLimit    uintptr
	JobMemoryLimit        uintptr
	PeakProcessMemoryUsed uintptr
	PeakJobMemoryUsed     uintptr
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobBasicAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// procGroup is, on Windows, a job object holding the server and every process it
// starts: what a process group is on Unix. The job is made kill-on-close, so the
// servers die with the suite however it ends (Pdeathsig on Linux). A nil job (none
// could be made) leaves only the server itself to stop.
type procGroup struct{ job *jobObject }

// jobObject is a job's handle, closed once; a handle value is not used after its
// close, when Windows may give it to another object.
type jobObject struct {
	mu sync.Mutex
	h  syscall.Handle
}

// newProcGroup puts the started process pr into a new kill-on-close job. A process
// pr started in the moment before is not in the job: Go's os/exec cannot start a
// process suspended, and the window is the few instructions between CreateProcess
// and the assignment.
func newProcGroup(pr *os.Process) procGroup {
	r, _, _ := procCreateJobObjectW.Call(0, 0)
	if r == 0 {
		return procGroup{}
	}
	job := syscall.Handle(r)
	var limit jobExtendedLimit
	limit.BasicLimitInformation.LimitFlags = jobObjectLimitKillOnJobClose
	if r, _, _ := procSetInformationJobObject.Call(uintptr(job), jobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limit)), unsafe.Sizeof(limit)); r == 0 {
		_ = syscall.CloseHandle(job)
		return procGroup{}
	}
	h, err := syscall.OpenProcess(processSetQuota|syscall.PROCESS_TERMINATE, false, uint32(pr.Pid))
	if err != nil {
		_ = syscall.CloseHandle(job)
		return procGroup{}
	}
	defer syscall.CloseHandle(h)
	if r, _, _ := procAssignProcessToJobObject.Call(uintptr(job), uintptr(h)); r == 0 {
		_ = syscall.CloseHandle(job)
		return procGroup{}
	}
	return procGroup{job: &jobObject{h: job}}
}

// terminate ends every process in the job.
func (g procGroup) terminate() {
	if g.job == nil {
		return
	}
	g.job.mu.Lock()
	defer g.job.mu.Unlock()
	if g.job.h != 0 {
		_, _, _ = procTerminateJobObject.Call(uintptr(g.job.h), 1)
	}
}

// active returns how many processes of the job are alive; ok is false without a job.
func (g procGroup) active() (n int, ok bool) {
	if g.job == nil {
		return 0, false
	}
	g.job.mu.Lock()
	defer g.job.mu.Unlock()
	if g.job.h == 0 {
		return 0, true
	}
	var acct jobBasicAccounting
	if r, _, _ := procQueryInformationJobObject.Call(uintptr(g.job.h), jobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), unsafe.Sizeof(acct), 0); r == 0 {
		return 0, false
	}
	return int(acct.ActiveProcesses), true
}

// release closes the job's handle, which (kill-on-close) ends what is left in it.
func (g procGroup) release() {
	if g.job == nil {
		return
	}
	g.job.mu.Lock()
	defer g.job.mu.Unlock()
	if g.job.h != 0 {
		_ = syscall.CloseHandle(g.job.h)
		g.job.h = 0
	}
}

// groupGone reports whether no process of the server's job is left; without a job,
// only the server itself is known, and it has been reaped.
func (p *proc) groupGone() bool {
	n, ok := p.group.active()
	return !ok || n == 0
}

// signalGroup delivers the stop sequence's signals. SIGKILL ends the job and the
// server. Windows has no SIGTERM: the nearest a console program can catch is
// CTRL_BREAK_EVENT, sent to the process group the server leads; it reaches the
// server only when the server shares the suite's console, and otherwise the
// SIGKILL step after KillGrace ends it.
func (p *proc) signalGroup(sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		p.killGroup()
		return
	}
	_, _, _ = procGenerateConsoleCtrlEvent.Call(ctrlBreakEvent, uintptr(p.pid))
}

// killGroup ends every process left in the server's job, and the server itself
// while it is unreaped (in case it has no job).
func (p *proc) killGroup() {
	p.group.terminate()
	if !p.exited() {
		_ = p.cmd.Process.Kill()
	}
}

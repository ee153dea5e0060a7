//go:build linux

package policyclient_test

import "syscall"

// serviceProcAttr kills the service when the test binary dies without stopping it (a panic, a
// -timeout): Pdeathsig fires when the thread that started it ends, which startService keeps alive.
func serviceProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

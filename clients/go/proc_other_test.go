//go:build !linux

package policyclient_test

import "syscall"

// serviceProcAttr: without Linux's parent-death signal, only TestMain's stop ends the service.
func serviceProcAttr() *syscall.SysProcAttr { return nil }

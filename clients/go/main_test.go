package policyclient_test

// TestMain starts the real service (dist/src/main.js, built by `npm run build` in the repository
// root) on a free loopback port with a temporary DATA_DIR and a Redis key prefix of its own,
// registers a tenant, mints a token, deploys a small module, runs the tests and stops the service.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	policyclient "github.com/policy-engine/client-go"
)

// The service every test talks to.
var svc struct {
	baseURL string
	tenant  string
	secret  string
	token   string // ADMIN bearer token of tenant
}

const (
	pricingModule = "acme.pricing"
	pricingSource = "Module acme.pricing.\n\nRule price given amount as Int, produce Int:\n  Return amount times 2.\n"
	startTimeout  = 90 * time.Second
	stopTimeout   = 20 * time.Second
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return fail("locating the repository root: %v", err)
	}
	mainJS := filepath.Join(root, "dist", "src", "main.js")
	if _, err := os.Stat(mainJS); err != nil {
		return fail("%s is missing: run `npm run build` in %s first (these tests start the real service)", mainJS, root)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fail("node is not on PATH: %v", err)
	}
	port, err := freePort()
	if err != nil {
		return fail("finding a free port: %v", err)
	}
	dataDir, err := os.MkdirTemp("", "policyclient-go-test-")
	if err != nil {
		return fail("making DATA_DIR: %v", err)
	}
	defer os.RemoveAll(dataDir)
	prefix := "gotest-" + randomHex(8)
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379"
	}
	defer func() {
		if err := removeRedisKeys(redisURL, prefix); err != nil {
			fmt.Fprintf(os.Stderr, "policyclient tests: could not remove the Redis keys %s*: %v\n", prefix, err)
		}
	}()

	// Exactly these variables (plus PATH): nothing inherited (MONGODB_URL, ROLE, …) changes the set-up.
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"REDIS_URL=" + redisURL,
		"DATA_DIR=" + dataDir,
		"REDIS_KEY_PREFIX=" + prefix,
		"LOG_LEVEL=warn",
	}
	serviceEnv := append([]string{
		"PORT=" + strconv.Itoa(port),
		"HOST=127.0.0.1",
		"ENGINE_THREADS=1",
	}, env...)

	var logs lockedBuffer
	// Run from DATA_DIR: the service and scripts read a `.env` of their working directory, and a
	// developer's .env in the repository root must not change this set-up.
	proc, err := startService(node, mainJS, dataDir, serviceEnv, &logs)
	if err != nil {
		return fail("starting the service: %v", err)
	}
	defer func() {
		if err := proc.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "policyclient tests: stopping the service: %v\n%s", err, logs.String())
		}
	}()

	svc.baseURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitReady(svc.baseURL, proc); err != nil {
		return fail("the service did not become ready: %v\nits output:\n%s", err, logs.String())
	}

	svc.tenant = "go-client-" + randomHex(4)
	out, err := runScript(node, dataDir, env, filepath.Join(root, "dist", "scripts", "tenant.js"), "create", svc.tenant)
	if err != nil {
		return fail("creating the tenant: %v", err)
	}
	svc.secret = lastLine(out)
	out, err = runScript(node, dataDir, env, filepath.Join(root, "dist", "scripts", "token.js"),
		"--tenant", svc.tenant, "--role", "ADMIN", "--sub", "go-test", "--ttl", "1h")
	if err != nil {
		return fail("minting a token: %v", err)
	}
	svc.token = lastLine(out)
	if svc.secret == "" || svc.token == "" {
		return fail("empty secret or token from the scripts")
	}

	admin, err := policyclient.New(policyclient.Options{BaseURL: svc.baseURL, TenantID: svc.tenant, Role: "ADMIN", BearerToken: svc.token})
	if err != nil {
		return fail("client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	deployed, err := admin.DeployPolicy(ctx, policyclient.DeployRequest{Source: pricingSource, Locale: "en-US"})
	cancel()
	if err != nil {
		return fail("deploying %s: %v\nservice output:\n%s", pricingModule, err, logs.String())
	}
	if deployed.StatusCode != http.StatusCreated || deployed.PolicyModule != pricingModule || deployed.Version != 1 {
		return fail("unexpected deploy answer: %d %+v", deployed.StatusCode, deployed)
	}

	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "service output:\n%s", logs.String())
	}
	return code
}

func fail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "policyclient tests: "+format+"\n", args...)
	return 1
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func runScript(node, dir string, env []string, script string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", filepath.Base(script), strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// lockedBuffer collects the service's output from two pipes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type serviceProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // Wait's result, once exited is closed
}

// startService starts node on a goroutine locked to its OS thread for the child's lifetime, so
// that the parent-death signal (Linux) fires only when the test binary itself dies (a panic, a
// timeout): the service is never left behind.
func startService(node, mainJS, dir string, env []string, output *lockedBuffer) (*serviceProcess, error) {
	p := &serviceProcess{exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(node, mainJS)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = output, output
		cmd.SysProcAttr = serviceProcAttr()
		p.cmd = cmd
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// stop sends SIGTERM and waits for a graceful exit, then kills.
func (p *serviceProcess) stop() error {
	select {
	case <-p.exited:
		return fmt.Errorf("the service had already exited: %v", p.err)
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.exited:
		var exitErr *exec.ExitError
		if p.err != nil && !errors.As(p.err, &exitErr) {
			return p.err
		}
		return nil
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("no exit within %s of SIGTERM: killed", stopTimeout)
	}
}

func waitReady(baseURL string, p *serviceProcess) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(startTimeout)
	last := "no answer yet"
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("the service exited: %v", p.err)
		default:
		}
		resp, err := client.Get(baseURL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("GET /readyz not 200 within %s (last: %s)", startTimeout, last)
}

// removeRedisKeys deletes the keys the run left in Redis (queues, nonces, rate limits), as the
// repository's own suites do, over a minimal RESP connection (standard library only).
func removeRedisKeys(redisURL, prefix string) error {
	u, err := url.Parse(redisURL)
	if err != nil || u.Scheme != "redis" {
		return fmt.Errorf("only redis:// URLs are cleaned up (%q)", redisURL)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "6379")
	}
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(conn)
	call := func(args ...string) (any, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := conn.Write([]byte(b.String())); err != nil {
			return nil, err
		}
		return readRESP(r)
	}
	if password, ok := u.User.Password(); ok {
		if _, err := call("AUTH", u.User.Username(), password); err != nil {
			return err
		}
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		if _, err := call("SELECT", db); err != nil {
			return err
		}
	}
	cursor := "0"
	for {
		reply, err := call("SCAN", cursor, "MATCH", "*"+prefix+"*", "COUNT", "1000")
		if err != nil {
			return err
		}
		parts, ok := reply.([]any)
		if !ok || len(parts) != 2 {
			return fmt.Errorf("unexpected SCAN reply %v", reply)
		}
		cursor, _ = parts[0].(string)
		keys, _ := parts[1].([]any)
		if len(keys) > 0 {
			args := []string{"DEL"}
			for _, k := range keys {
				if s, ok := k.(string); ok {
					args = append(args, s)
				}
			}
			if _, err := call(args...); err != nil {
				return err
			}
		}
		if cursor == "0" || cursor == "" {
			return nil
		}
	}
}

func readRESP(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty RESP line")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return nil, errors.New(line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = readRESP(r); err != nil {
				return nil, err
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("unexpected RESP line %q", line)
}

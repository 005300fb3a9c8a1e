// zds-relay carries ZDS datagrams between a Node process and a SOCK_SEQPACKET unix socket, with the
// SCM_RIGHTS file descriptors Node cannot send or receive itself. It knows nothing of protobuf: the
// harness encodes and decodes ZDS (mesh/zds/zds-messages.ts); this only moves bytes and fds.
//
//	zds-relay serve <socket>    the node agent's side, as istio-cni listens (net.ListenUnix
//	                            "unixpacket" after removing a stale file: istio/istio
//	                            cni/pkg/nodeagent/ztunnelserver_linux.go newZtunnelServer)
//	zds-relay connect <socket>  ztunnel's side, as istio/ztunnel src/inpod/packet.rs connects
//	                            (a stand-in ztunnel for tests)
//	zds-relay connect <socket> keep-fds
//	                            the same for our ztunnel: each received fd is kept open, its
//	                            number reported, so that /proc/<relay pid>/fd/<fd> names the pod's
//	                            network namespace (nsenter opens it) until a "release"
//
// stdin, one JSON object a line:
//
//	{"op":"send","id":N,"conn":C,"data":"<base64>","netns":"/proc/PID/ns/net"}  one datagram; with
//	    netns, that file is opened and its fd rides along (SCM_RIGHTS, as istio-cni's WriteMsgUnix
//	    with unix.UnixRights), then closed here
//	{"op":"close","conn":C}
//	{"op":"release","fd":F}   keep-fds: closes a kept fd (the pod is gone)
//
// stdout, one JSON object a line:
//
//	{"ev":"listening","path":P} {"ev":"open","conn":C} {"ev":"closed","conn":C,"error":E}
//	{"ev":"message","conn":C,"data":"<base64>","fds":[{"ino":I,"dev":D,"nsfs":B}],"truncated":B}
//	{"ev":"sent","id":N} {"ev":"failed","id":N,"error":E} {"ev":"fatal","error":E}
//
// A received fd is described (fstat's inode and device, and whether it lives on nsfs, which is
// how a network namespace is identified: istio/ztunnel src/inpod/netns.rs NetnsID, protocol.rs
// validate_ns) and closed, or with keep-fds kept and numbered. stdin's end (the harness gone)
// closes everything and exits 0.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// NSFS_MAGIC from linux/magic.h.
const nsfsMagic = 0x6e736673

// istio-cni's readWriteDeadline (cni/pkg/nodeagent/ztunnelserver.go).
const writeDeadline = 5 * time.Second

// Both upstreams read into 1024 bytes and refuse MSG_TRUNC; ours reads more and reports it.
const maxDatagram = 64 * 1024

type fdInfo struct {
	Fd   int    `json:"fd,omitempty"`
	Ino  uint64 `json:"ino"`
	Dev  uint64 `json:"dev"`
	Nsfs bool   `json:"nsfs"`
}

type event struct {
	Ev        string   `json:"ev"`
	Conn      int      `json:"conn,omitempty"`
	ID        int      `json:"id,omitempty"`
	Path      string   `json:"path,omitempty"`
	Data      []byte   `json:"data,omitempty"`
	Fds       []fdInfo `json:"fds,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Error     string   `json:"error,omitempty"`
}

type command struct {
	Op    string `json:"op"`
	ID    int    `json:"id"`
	Conn  int    `json:"conn"`
	Data  []byte `json:"data"`
	Netns string `json:"netns"`
	Fd    int    `json:"fd"`
}

type relay struct {
	mu    sync.Mutex
	out   *json.Encoder
	conns map[int]*net.UnixConn
	next  int
	// keep-fds: the received fds held open, by number.
	keep bool
	kept map[int]bool
}

func (r *relay) emit(e event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.out.Encode(e) // stdout gone means the harness is gone; stdin's EOF ends us
}

func (r *relay) add(c *net.UnixConn) int {
	r.mu.Lock()
	r.next++
	id := r.next
	r.conns[id] = c
	r.mu.Unlock()
	r.emit(event{Ev: "open", Conn: id})
	go r.read(id, c)
	return id
}

func (r *relay) conn(id int) *net.UnixConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns[id]
}

func (r *relay) read(id int, c *net.UnixConn) {
	buf := make([]byte, maxDatagram)
	oob := make([]byte, syscall.CmsgSpace(16*4))
	for {
		n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
		if err != nil {
			r.mu.Lock()
			delete(r.conns, id)
			r.mu.Unlock()
			_ = c.Close()
			e := event{Ev: "closed", Conn: id}
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				e.Error = err.Error()
			}
			r.emit(e)
			return
		}
		fds, ferr := r.describeFds(oob[:oobn])
		e := event{Ev: "message", Conn: id, Data: append([]byte{}, buf[:n]...), Fds: fds,
			Truncated: flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0}
		if ferr != nil {
			e.Error = ferr.Error()
		}
		r.emit(e)
	}
}

func (r *relay) describeFds(oob []byte) ([]fdInfo, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var infos []fdInfo
	for i := range msgs {
		fds, err := syscall.ParseUnixRights(&msgs[i])
		if err != nil {
			continue // not SCM_RIGHTS
		}
		for _, fd := range fds {
			var st syscall.Stat_t
			var fs syscall.Statfs_t
			info := fdInfo{}
			if syscall.Fstat(fd, &st) == nil {
				info.Ino, info.Dev = st.Ino, st.Dev
			}
			if syscall.Fstatfs(fd, &fs) == nil {
				info.Nsfs = fs.Type == nsfsMagic
			}
			if r.keep {
				info.Fd = fd
				r.mu.Lock()
				r.kept[fd] = true
				r.mu.Unlock()
			} else {
				_ = syscall.Close(fd)
			}
			infos = append(infos, info)
		}
	}
	return infos, nil
}

func (r *relay) send(cmd command) error {
	c := r.conn(cmd.Conn)
	if c == nil {
		return fmt.Errorf("no connection %d", cmd.Conn)
	}
	var rights []byte
	if cmd.Netns != "" {
		fd, err := syscall.Open(cmd.Netns, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", cmd.Netns, err)
		}
		defer syscall.Close(fd)
		rights = syscall.UnixRights(fd)
	}
	if err := c.SetWriteDeadline(time.Now().Add(writeDeadline)); err != nil {
		return err
	}
	_, _, err := c.WriteMsgUnix(cmd.Data, rights, nil)
	return err
}

func (r *relay) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		_ = c.Close()
	}
}

func (r *relay) commands(in io.Reader) {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for scanner.Scan() {
		var cmd command
		if err := json.Unmarshal(scanner.Bytes(), &cmd); err != nil {
			r.emit(event{Ev: "fatal", Error: fmt.Sprintf("bad command line: %v", err)})
			return
		}
		switch cmd.Op {
		case "send":
			if err := r.send(cmd); err != nil {
				r.emit(event{Ev: "failed", ID: cmd.ID, Error: err.Error()})
			} else {
				r.emit(event{Ev: "sent", ID: cmd.ID})
			}
		case "release":
			r.mu.Lock()
			held := r.kept[cmd.Fd]
			delete(r.kept, cmd.Fd)
			r.mu.Unlock()
			if held {
				_ = syscall.Close(cmd.Fd)
			}
		case "close":
			if c := r.conn(cmd.Conn); c != nil {
				_ = c.Close() // its reader reports "closed"
			}
		default:
			r.emit(event{Ev: "fatal", Error: fmt.Sprintf("unknown op %q", cmd.Op)})
			return
		}
	}
}

func main() {
	keep := len(os.Args) == 4 && os.Args[1] == "connect" && os.Args[3] == "keep-fds"
	if (len(os.Args) != 3 && !keep) || (os.Args[1] != "serve" && os.Args[1] != "connect") {
		fmt.Fprintln(os.Stderr, "usage: zds-relay serve|connect <socket path> | connect <socket path> keep-fds")
		os.Exit(2)
	}
	mode, path := os.Args[1], os.Args[2]
	r := &relay{out: json.NewEncoder(os.Stdout), conns: map[int]*net.UnixConn{}, keep: keep, kept: map[int]bool{}}
	addr := &net.UnixAddr{Name: path, Net: "unixpacket"}
	var listener *net.UnixListener
	if mode == "connect" {
		c, err := net.DialUnix("unixpacket", nil, addr)
		if err != nil {
			r.emit(event{Ev: "fatal", Error: err.Error()})
			os.Exit(1)
		}
		r.add(c)
	} else {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			r.emit(event{Ev: "fatal", Error: err.Error()})
			os.Exit(1)
		}
		l, err := net.ListenUnix("unixpacket", addr)
		if err != nil {
			r.emit(event{Ev: "fatal", Error: err.Error()})
			os.Exit(1)
		}
		listener = l
		r.emit(event{Ev: "listening", Path: path})
		go func() {
			for {
				c, err := l.AcceptUnix()
				if err != nil {
					return
				}
				r.add(c)
			}
		}()
	}
	r.commands(os.Stdin)
	// Stop accepting (and unlink the socket: Go removes what it bound) before closing connections:
	// a ztunnel reconnects the moment it reads EOF (src/inpod/workloadmanager.rs connect, no delay
	// on the first try), and would otherwise be accepted by a relay about to exit, its hello then
	// failing ("node agent announcement failed"). With the file gone it waits with back-off instead.
	if listener != nil {
		_ = listener.Close()
	}
	r.closeAll()
}

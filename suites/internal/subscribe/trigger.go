package subscribe

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Trigger is one way to change the server's tool list.
type Trigger struct {
	What string // for messages: "the fixture tool …", "--trigger-tool …", "--trigger-cmd …"
	Tool string // the tool to call ("" for a command)
	Cmd  string // the shell command ("" for a tool)
}

// PickTrigger chooses the trigger: the fixture tool when the server lists it, else
// --trigger-tool, else --trigger-cmd; nil when there is none.
func PickTrigger(t *conform.T) *Trigger {
	opts := t.Options()
	switch {
	case toolkit.List(t).Find(toolkit.TriggerFixture) != nil:
		return &Trigger{What: "the fixture tool " + toolkit.TriggerFixture, Tool: toolkit.TriggerFixture}
	case opts.TriggerTool != nil:
		return &Trigger{What: "--trigger-tool " + opts.TriggerTool.Name, Tool: opts.TriggerTool.Name}
	case opts.TriggerCmd != "":
		return &Trigger{What: fmt.Sprintf("--trigger-cmd %q", opts.TriggerCmd), Cmd: opts.TriggerCmd}
	}
	return nil
}

// Fire changes the tool list in session s; it returns the verdict of a trigger that
// failed (nil when it worked).
func (tr *Trigger) Fire(t *conform.T, s *conform.Session, l *toolkit.Listing) *conform.Verdict {
	// On a shared server, the change waits for the previous change check's end
	// (its listings after its own change), and once made lets the next one read.
	t.ChangeNow()
	defer t.ChangeMade()
	// From here on no listing made before stands for the list (toolkit.Current),
	// whether or not the trigger succeeds.
	t.StateChanged(conform.StateToolList)
	if tr.Cmd != "" {
		return RunTriggerCmd(t, tr.Cmd)
	}
	tl := toolkit.Tool{ToolDef: &toolkit.ToolDef{Name: tr.Tool}}
	if found := l.Find(tr.Tool); found != nil {
		tl = *found
	}
	p := toolkit.Allowed(t, tl)
	if !p.Allowed {
		v := conform.Errorf("%s may not be called: %s", tr.What, p.Why)
		return &v
	}
	o := toolkit.Call(t, s, tr.Tool, p.Args)
	switch {
	case o.Err != nil || o.Resp.IsError() || o.Result == nil:
		v := conform.Errorf("%s failed, so the tool list was not changed: %s", tr.What, o.Describe())
		return &v
	case o.IsError:
		v := conform.Warn("a successful call of "+tr.What+" that changes the tool list", o.Describe())
		return &v
	}
	return nil
}

// MustFire is Fire for a check that cannot go on when the trigger failed: it ends the
// check with Fire's verdict.
func (tr *Trigger) MustFire(t *conform.T, s *conform.Session, l *toolkit.Listing) {
	if v := tr.Fire(t, s, l); v != nil {
		t.Stop(*v)
	}
}

// RunTriggerCmd runs --trigger-cmd with sh -c, bounded, in the launched server's
// working directory when one was given.
func RunTriggerCmd(t *conform.T, command string) *conform.Verdict {
	ctx, cancel := context.WithTimeout(t.Ctx, max(10*time.Second, 2*t.Timeout()))
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = t.Options().Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		v := conform.Errorf("--trigger-cmd %q failed (%v), so the tool list was not changed; its output: %s", command, err, toolkit.Or(conform.Clip(strings.TrimSpace(out.String()), 400), "(none)"))
		return &v
	}
	return nil
}

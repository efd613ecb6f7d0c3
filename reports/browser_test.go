package reports

// TestBrowser opens the HTML report in headless Chromium (Debian's chromium package) through
// the DevTools protocol (chromedp) and checks what a reviewer would see: no console error
// or uncaught exception, no request for anything but the file itself (the report is
// self-contained), every plot the model says it has drawn as a non-empty SVG, and
// screenshots saved for a person to look at.
//
// Which report: $KREACTOR_REPORT_HTML (make browser-check points it at
// reports/out/conformance.html and reads the expected plot count from the summary.json
// beside it), else a report rendered from the real run files in testdata/run. Without
// chromium the test skips, unless $KREACTOR_REQUIRE_CHROMIUM=1 (make browser-check).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumFlags are the launch flags that work on the project's machines (no sandbox as
// root, no GPU, nothing that phones home).
func chromiumOptions(execPath, userDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(execPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(userDir),
		chromedp.WindowSize(1400, 1000),
	}
}

// pageCheck is what the page reports about itself (see plotCheckJS).
type pageCheck struct {
	Figures  int      `json:"figures"`
	SVGs     int      `json:"svgs"`
	OK       int      `json:"ok"`
	Bad      []string `json:"bad"`
	Declared int      `json:"declared"`
	Scripts  int      `json:"scripts"`
	External []string `json:"external"`
	Height   int      `json:"height"`
}

const plotCheckJS = `(() => {
  const figs = [...document.querySelectorAll('figure.plot')];
  const bad = [];
  let ok = 0;
  for (const f of figs) {
    const s = f.querySelector('svg.kreactor-plot');
    if (!s) { bad.push(f.id + ': no svg'); continue; }
    const r = s.getBoundingClientRect();
    const paths = s.querySelectorAll('path').length, texts = s.querySelectorAll('text').length;
    if (r.width < 150 || r.height < 80 || paths < 5 || texts < 3) {
      bad.push(f.id + ': ' + Math.round(r.width) + 'x' + Math.round(r.height) + ', ' + paths + ' paths, ' + texts + ' texts');
    } else { ok++; }
  }
  const ext = [...document.querySelectorAll('[src], link[href], object[data], iframe')].map(e => e.src || e.href || e.data || 'iframe');
  return {figures: figs.length, svgs: document.querySelectorAll('svg.kreactor-plot').length, ok, bad,
    declared: +document.querySelector('main').dataset.plots, scripts: document.scripts.length, external: ext,
    height: document.documentElement.scrollHeight};
})()`

func TestBrowser(t *testing.T) {
	execPath := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			execPath = p
			break
		}
	}
	if execPath == "" {
		if os.Getenv("KREACTOR_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium not found; `make chromium` installs Debian's package")
		}
		t.Skip("chromium not installed (make browser-check installs it)")
	}

	htmlPath, shotDir := os.Getenv("KREACTOR_REPORT_HTML"), os.Getenv("KREACTOR_SCREENSHOT_DIR")
	var want int
	if htmlPath != "" {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(htmlPath), "summary.json"))
		if err != nil {
			t.Fatalf("expected plot count: %v", err)
		}
		var s struct {
			Plots *int `json:"plots"`
		}
		if err := json.Unmarshal(data, &s); err != nil || s.Plots == nil {
			t.Fatalf("summary.json beside %s has no plot count (%v)", htmlPath, err)
		}
		want = *s.Plots
		if shotDir == "" {
			shotDir = filepath.Dir(htmlPath)
		}
	} else {
		rep := realRunReport(t)
		want = rep.PlotCount()
		if want == 0 {
			t.Fatal("the real-run fixture draws no plot")
		}
		htmlPath = filepath.Join(t.TempDir(), "conformance.html")
		writeReportFile(t, htmlPath, rep)
		if shotDir == "" {
			shotDir = "out" // reports/out, next to `make conformance`'s report
		}
	}
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(abs)

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(execPath, t.TempDir())...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()
	if err := chromedp.Do(ctx); err != nil { // start the browser and open the tab
		t.Fatalf("start chromium: %v", err)
	}

	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	// Events arrive on chromedp's goroutines; they are kept until the browser is closed.
	var mu sync.Mutex
	var events []any
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev)
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fileURL)); err != nil {
		t.Fatalf("open %s: %v", fileURL, err)
	}
	check, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](plotCheckJS))
	if err != nil {
		t.Fatalf("evaluate the plot check: %v", err)
	}
	if err := os.MkdirAll(shotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	top, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	save := func(name string, png []byte) {
		p := filepath.Join(shotDir, name)
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s (%d bytes)", p, len(png))
	}
	save("conformance-top.png", top)
	// The first regression spec section with a loop-steps plot and a fault window (what a
	// reviewer scrolls to), else any with a fault window, else any with a loop-steps plot.
	spec, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
	  const all = [...document.querySelectorAll('figure.plot[data-kind=steps]')].map(f => f.closest('details'));
	  const faulted = d => d.querySelector('table.faults');
	  const d = all.find(d => d.id.startsWith('spec-kafka-') && faulted(d)) || all.find(faulted) || all[0];
	  return d ? d.id : '';
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if spec != "" {
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(spec)))
		if err != nil {
			t.Fatalf("screenshot of %s: %v", spec, err)
		}
		save("conformance-spec.png", shot)
	}
	cancelTimeout()
	cancel()
	cancelAlloc() // waits for the browser to exit: no event arrives after this
	mu.Lock()
	defer mu.Unlock()
	for _, ev := range events {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				add("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			add("uncaught exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				add("browser log %s (%s): %s %s", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				add("network request beyond the file: %s", u)
			}
		}
	}
	if check.Figures != want || check.SVGs != want || check.Declared != want || check.OK != want {
		add("plots: model says %d, page declares %d, %d figures, %d SVGs, %d drawn; not drawn: %v", want, check.Declared, check.Figures, check.SVGs, check.OK, check.Bad)
	}
	if check.Scripts != 0 || len(check.External) != 0 {
		add("the report must hold no script and reference no external resource: %d scripts, %v", check.Scripts, check.External)
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%s: %d plots drawn, page %d px tall", htmlPath, check.OK, check.Height)
}

// writeReportFile writes rep's HTML and its summary.json to path's directory.
func writeReportFile(t *testing.T, path string, rep Report) {
	t.Helper()
	for _, f := range []struct {
		name  string
		write func(*os.File) error
	}{
		{filepath.Base(path), func(f *os.File) error { return WriteHTML(f, rep) }},
		{"summary.json", func(f *os.File) error { return WriteJSON(f, rep) }},
	} {
		out, err := os.Create(filepath.Join(filepath.Dir(path), f.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.write(out); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

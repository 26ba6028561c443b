// Command migrating checks docs/migrating.md against bwmarrin/snowflake's and
// sony/sonyflake's (v1 and v2) own IDs: each row of the page's table for
// those peers names the snowflake-c flags that read their IDs; this makes IDs
// with the peer (its defaults, node values of ours), decodes them with the
// snowflake-c CLI under every set of flags the row gives, and checks the time
// and the fields against what the peer says of each ID (bwmarrin's Time(),
// Node() and Step(); sonyflake v1's Decompose(); v2's Decompose() and
// ToTime()). sonyflake v1 gives only the time since its StartTime, so there
// the time is held against the clock read around NextID(), to its 10 ms; the
// other two are held against it as well. Exits non-zero on any difference,
// naming the row and the ID; benchmarks/run runs it.
//
//	cd benchmarks/go && go run . -cli PATH/snowflake-c ../../docs/migrating.md
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake"
	sonyflakev2 "github.com/sony/sonyflake/v2"
)

// An ID as its library sees it.
type made struct {
	id     uint64
	timeMs int64 // the library's own time of the ID, Unix ms; -1 where it gives none
	node   int64 // bwmarrin's node, sonyflake's machine
	seq    int64 // bwmarrin's step, sonyflake's sequence
	// The wall clock, Unix ms, read before and after the call that made it.
	before, after int64
}

type peer struct {
	name   string
	unitMs int64 // the library's time unit
	make   func() ([]made, error)
}

const perNode = 300

// Spread over a few ms, so that the IDs' times differ.
func pause(i int) {
	if i%20 == 19 {
		time.Sleep(time.Millisecond)
	}
}

func bwmarrin() ([]made, error) {
	var out []made
	for _, n := range []int64{0, 1, 347, 1023} {
		node, err := snowflake.NewNode(n)
		if err != nil {
			return nil, err
		}
		for i := 0; i < perNode; i++ {
			before := time.Now().UnixMilli()
			id := node.Generate()
			after := time.Now().UnixMilli()
			out = append(out, made{uint64(id.Int64()), id.Time(), id.Node(), id.Step(), before, after})
			pause(i)
		}
	}
	return out, nil
}

func sonyV1() ([]made, error) {
	var out []made
	for _, m := range []uint16{0, 1, 4242, 65535} {
		m := m
		// The default StartTime: the row's epoch is the library's own default.
		sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (uint16, error) { return m, nil }})
		if err != nil {
			return nil, err
		}
		for i := 0; i < perNode; i++ {
			before := time.Now().UnixMilli()
			id, err := sf.NextID()
			if err != nil {
				return nil, err
			}
			after := time.Now().UnixMilli()
			parts := sonyflake.Decompose(id)
			out = append(out, made{id, -1, int64(parts["machine-id"]), int64(parts["sequence"]), before, after})
			pause(i)
		}
	}
	return out, nil
}

func sonyV2() ([]made, error) {
	var out []made
	for _, m := range []int{0, 1, 4242, 65535} {
		m := m
		sf, err := sonyflakev2.New(sonyflakev2.Settings{MachineID: func() (int, error) { return m, nil }})
		if err != nil {
			return nil, err
		}
		for i := 0; i < perNode; i++ {
			before := time.Now().UnixMilli()
			id, err := sf.NextID()
			if err != nil {
				return nil, err
			}
			after := time.Now().UnixMilli()
			parts := sf.Decompose(id)
			out = append(out, made{uint64(id), sf.ToTime(id).UnixMilli(), parts["machine"], parts["sequence"], before, after})
			pause(i)
		}
	}
	return out, nil
}

// The page's rows for the Go peers: the peer's name, the row's text, its
// snowflake-c cell.
type row struct{ peer, text, cell string }

func rows(page string) ([]row, error) {
	text, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	var out []row
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		first := strings.TrimSpace(cells[1])
		name := ""
		switch {
		case strings.Contains(first, "bwmarrin/snowflake"):
			name = "bwmarrin/snowflake"
		case strings.Contains(first, "sony/sonyflake") && strings.HasSuffix(first, "v1"):
			name = "sony/sonyflake v1"
		case strings.Contains(first, "sony/sonyflake") && strings.HasSuffix(first, "v2"):
			name = "sony/sonyflake v2"
		case strings.Contains(first, "sony/sonyflake"):
			return nil, fmt.Errorf("a row of %s names a sonyflake version this check lacks: %s", page, line)
		default:
			continue
		}
		out = append(out, row{name, line, strings.TrimSpace(cells[len(cells)-2])})
	}
	return out, nil
}

var code = regexp.MustCompile("`([^`]*)`")

// The layout flags of each command in a row's snowflake-c cell.
func flagSets(cell string) ([][]string, error) {
	var out [][]string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		words := strings.Fields(m[1])
		var flags []string
		for i := 0; i+1 < len(words); i++ {
			switch words[i] {
			case "--preset", "--layout", "--epoch":
				flags = append(flags, words[i], words[i+1])
				i++
			}
		}
		if len(flags) == 0 {
			return nil, fmt.Errorf("no --preset or --layout in `%s`", m[1])
		}
		out = append(out, flags)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no command in %q", cell)
	}
	return out, nil
}

type field struct {
	Name string
	Kind string
	Bits uint
}

func cli(bin string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("snowflake-c %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// check decodes the IDs under one set of flags and holds each against the
// library's view; it returns the differences found.
func check(bin string, p peer, r row, flags []string, ids []made) ([]string, error) {
	out, err := cli(bin, nil, append([]string{"layout", "--json"}, flags...)...)
	if err != nil {
		return nil, err
	}
	var layout struct{ Fields []field }
	if err := json.Unmarshal(out, &layout); err != nil {
		return nil, err
	}
	var input bytes.Buffer
	for _, m := range ids {
		fmt.Fprintln(&input, m.id)
	}
	out, err = cli(bin, input.Bytes(), append([]string{"decode", "--json"}, flags...)...)
	if err != nil {
		return nil, err
	}
	var bad []string
	where := func(m made, what string, args ...any) {
		bad = append(bad, fmt.Sprintf("%s: ID %d under `%s`: %s\n  row: %s",
			p.name, m.id, strings.Join(flags, " "), fmt.Sprintf(what, args...), r.text))
	}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for ; scanner.Scan(); n++ {
		if n >= len(ids) {
			return nil, fmt.Errorf("snowflake-c decode printed more lines than IDs")
		}
		m := ids[n]
		dec := json.NewDecoder(strings.NewReader(scanner.Text()))
		dec.UseNumber()
		var got map[string]any
		if err := dec.Decode(&got); err != nil {
			return nil, err
		}
		if got["id"] != strconv.FormatUint(m.id, 10) {
			where(m, "decoded as ID %v", got["id"])
			continue
		}
		value := func(name string) int64 {
			v, _ := got[name].(json.Number).Int64()
			return v
		}
		t := value("time_ms")
		if m.timeMs >= 0 && t != m.timeMs {
			where(m, "time %d (%v), the library's %d", t, got["time"], m.timeMs)
		}
		if t < m.before-p.unitMs || t > m.after+1 {
			where(m, "time %d (%v), made between %d and %d", t, got["time"], m.before, m.after)
		}
		var node, seq int64
		seqs := 0
		for _, f := range layout.Fields {
			switch f.Kind {
			case "time":
			case "node": // the node fields in order: the library's one node value
				node = node<<f.Bits | value(f.Name)
			case "seq":
				seq = value(f.Name)
				seqs++
			default:
				where(m, "a field %s of kind %s, which the library lacks", f.Name, f.Kind)
			}
		}
		if seqs != 1 {
			where(m, "%d sequence fields", seqs)
		}
		if node != m.node {
			where(m, "node fields %d, the library's node %d", node, m.node)
		}
		if seq != m.seq {
			where(m, "seq %d, the library's %d", seq, m.seq)
		}
	}
	if n != len(ids) {
		return nil, fmt.Errorf("snowflake-c decode printed %d lines for %d IDs", n, len(ids))
	}
	return bad, nil
}

func main() {
	bin := flag.String("cli", "snowflake-c", "the snowflake-c command-line tool")
	flag.Parse()
	page := "../../docs/migrating.md"
	if flag.NArg() > 0 {
		page = flag.Arg(0)
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "benchmarks/go:", err)
		os.Exit(1)
	}
	peers := []peer{
		{"bwmarrin/snowflake", 1, bwmarrin},
		{"sony/sonyflake v1", 10, sonyV1},
		{"sony/sonyflake v2", 10, sonyV2},
	}
	all, err := rows(page)
	if err != nil {
		fail(err)
	}
	checked, layouts := 0, 0
	var bad []string
	for _, p := range peers {
		ids, err := p.make()
		if err != nil {
			fail(fmt.Errorf("%s: %v", p.name, err))
		}
		found := false
		for _, r := range all {
			if r.peer != p.name {
				continue
			}
			found = true
			sets, err := flagSets(r.cell)
			if err != nil {
				fail(fmt.Errorf("%s: %v\n  row: %s", p.name, err, r.text))
			}
			for _, flags := range sets {
				b, err := check(*bin, p, r, flags, ids)
				if err != nil {
					fail(fmt.Errorf("%s: %v", p.name, err))
				}
				bad = append(bad, b...)
				checked += len(ids)
				layouts++
			}
		}
		if !found {
			fail(fmt.Errorf("%s has no row for %s", page, p.name))
		}
	}
	if len(bad) > 0 {
		for i, b := range bad {
			if i == 10 {
				fmt.Fprintf(os.Stderr, "… and %d more\n", len(bad)-i)
				break
			}
			fmt.Fprintln(os.Stderr, b)
		}
		fmt.Fprintf(os.Stderr, "%s: %d differences from bwmarrin/snowflake's and sony/sonyflake's own reading\n", page, len(bad))
		os.Exit(1)
	}
	fmt.Printf("%s: %d IDs of bwmarrin/snowflake and sony/sonyflake v1 and v2 read as the libraries read them (%d layouts)\n",
		page, checked, layouts)
}

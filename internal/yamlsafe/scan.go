package yamlsafe

import "fmt"

// scanDepth bounds the nesting of data in one linear pass, before the YAML
// library sees it. It over-estimates rather than under-estimates: block
// nesting is the number of distinct, increasing indentations open (plus
// compact "- - x" and "? "/": " indicators on a line), flow nesting the
// open brackets outside quoted scalars, comments and block scalars. A
// document it refuses is one no configuration needs.
func scanDepth(data []byte, max int) error {
	s := scanner{data: data, max: max}
	return s.run()
}

type scanner struct {
	data   []byte
	max    int
	flow   int   // open [ and {
	stack  []int // open block indentations
	quote  byte  // ' or " while in a quoted scalar
	block  int   // indentation of the line that opened a block scalar, or -1
	inBlck bool
}

func (s *scanner) tooDeep() error {
	return fmt.Errorf("%w: nested deeper than %d levels", ErrBounds, s.max)
}

func (s *scanner) run() error {
	data := s.data
	for start := 0; start < len(data); {
		end := start
		for end < len(data) && data[end] != '\n' {
			end++
		}
		if err := s.line(data[start:end]); err != nil {
			return err
		}
		start = end + 1
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func (s *scanner) line(l []byte) error {
	col := 0
	for col < len(l) && isSpace(l[col]) {
		col++
	}
	blank := col == len(l) || l[col] == '#'
	if s.inBlck {
		if blank || col > s.block {
			return nil // block scalar content
		}
		s.inBlck = false
	}
	i := col
	if s.quote == 0 && s.flow == 0 {
		if blank {
			return nil
		}
		for len(s.stack) > 0 && s.stack[len(s.stack)-1] >= col {
			s.stack = s.stack[:len(s.stack)-1]
		}
		s.stack = append(s.stack, col)
		// Compact nesting on one line: "- - - x", "- ? x", "- key: - x".
		for i+1 < len(l) && (l[i] == '-' || l[i] == '?' || l[i] == ':') && isSpace(l[i+1]) {
			i += 2
			for i < len(l) && isSpace(l[i]) {
				i++
			}
			s.stack = append(s.stack, i)
		}
		if len(s.stack) > s.max {
			return s.tooDeep()
		}
	}
	return s.rest(l, i, col)
}

// rest scans a line from i for quotes, brackets, comments and block
// scalar indicators; atStart is true where a new token may begin.
func (s *scanner) rest(l []byte, i, col int) error {
	atStart := true
	for ; i < len(l); i++ {
		c := l[i]
		if s.quote != 0 {
			switch {
			case s.quote == '"' && c == '\\':
				i++
			case c == s.quote:
				if s.quote == '\'' && i+1 < len(l) && l[i+1] == '\'' {
					i++ // '' inside a single-quoted scalar
					continue
				}
				s.quote = 0
				atStart = false
			}
			continue
		}
		switch {
		case isSpace(c):
			atStart = true
			continue
		case c == '#' && atStart:
			return nil // comment
		case (c == '"' || c == '\'') && atStart:
			s.quote = c
		case (c == '[' || c == '{') && (atStart || s.flow > 0):
			s.flow++
			if s.flow+len(s.stack) > s.max {
				return s.tooDeep()
			}
			atStart = true
			continue
		case (c == ']' || c == '}') && s.flow > 0:
			s.flow--
		case c == ',' && s.flow > 0:
			atStart = true
			continue
		case (c == '|' || c == '>') && atStart && s.flow == 0:
			s.inBlck, s.block = true, col
		case c == ':' && i+1 < len(l) && isSpace(l[i+1]):
			atStart = true
			continue
		case c == '-' && atStart && i+1 < len(l) && isSpace(l[i+1]):
			continue
		}
		atStart = false
	}
	return nil
}

package results

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
)

// A plot is saved as a PNG of 8-bit RGB rows, each with the filter type
// None, compressed at zlib's best speed (zlib's default level spent about
// twice the time in deflate, for files 2 to 4 % smaller, measured with
// image/png's filters). image/png offers no choice of filter: it filters
// every row each way PNG allows and keeps the way whose bytes sum
// smallest, about 40 % of its time on a plot (BenchmarkWritePlotPNG). A
// plot is flat colour and thin lines, which zlib compresses about as well
// unfiltered: the 45 plots of the committed workloads (the quickstart and
// every sweep) take 6 % fewer bytes in all (41 of them fewer, up to 19 %
// fewer), the same pixels; a time series of dense curves can take more
// (14 % more for rdma-read-write's throughput over time).
// docs/workloads.md, "`nicsim run`" (its Plots item), gives the time saved.

// pngIDATBytesMax is the most image data a PNG chunk carries here.
const pngIDATBytesMax = 1 << 16

// writePNG writes m to w as a PNG: an opaque *image.RGBA as 8-bit RGB rows
// of filter type None; any other image by image/png.
func writePNG(w io.Writer, m image.Image) error {
	b := bufio.NewWriter(w)
	rgba, ok := m.(*image.RGBA)
	if !ok || !rgba.Opaque() {
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(b, m); err != nil {
			return err
		}
		return b.Flush()
	}
	pw := &pngChunks{w: b, idat: make([]byte, 0, pngIDATBytesMax)}
	if err := pw.header(rgba.Bounds()); err != nil {
		return err
	}
	if err := pw.rows(rgba); err != nil {
		return err
	}
	if err := pw.chunk("IEND", nil); err != nil {
		return err
	}
	return b.Flush()
}

// pngChunks writes a PNG's chunks to w; as an io.Writer it takes the
// compressed image data, sent as IDAT chunks of pngIDATBytesMax.
type pngChunks struct {
	w    io.Writer
	idat []byte
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// header writes the signature and the IHDR chunk of an 8-bit RGB image of
// bounds r: no interlacing.
func (p *pngChunks) header(r image.Rectangle) error {
	if _, err := p.w.Write(pngSignature); err != nil {
		return err
	}
	var h [13]byte
	binary.BigEndian.PutUint32(h[0:], uint32(r.Dx()))
	binary.BigEndian.PutUint32(h[4:], uint32(r.Dy()))
	h[8], h[9] = 8, 2 // bit depth, colour type truecolour
	return p.chunk("IHDR", h[:])
}

// rows writes m's rows, RGB with filter type None, as zlib-compressed
// IDAT chunks.
func (p *pngChunks) rows(m *image.RGBA) error {
	zw, err := zlib.NewWriterLevel(p, zlib.BestSpeed)
	if err != nil {
		return err
	}
	r := m.Bounds()
	row := make([]byte, 1+3*r.Dx()) // row[0] = 0: filter type None
	for y := r.Min.Y; y < r.Max.Y; y++ {
		pix := m.Pix[m.PixOffset(r.Min.X, y):]
		for i, j := 1, 0; i < len(row); i, j = i+3, j+4 {
			row[i], row[i+1], row[i+2] = pix[j], pix[j+1], pix[j+2]
		}
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return p.flush()
}

// Write takes compressed image data.
func (p *pngChunks) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		k := min(len(b), pngIDATBytesMax-len(p.idat))
		p.idat, b = append(p.idat, b[:k]...), b[k:]
		if len(p.idat) == pngIDATBytesMax {
			if err := p.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush writes the image data held as an IDAT chunk.
func (p *pngChunks) flush() error {
	if len(p.idat) == 0 {
		return nil
	}
	err := p.chunk("IDAT", p.idat)
	p.idat = p.idat[:0]
	return err
}

// chunk writes a chunk: its length, type, data and the CRC of type and
// data.
func (p *pngChunks) chunk(kind string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], kind)
	crc := crc32.Update(crc32.ChecksumIEEE(head[4:]), crc32.IEEETable, data)
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc)
	for _, b := range [][]byte{head[:], data, tail[:]} {
		if _, err := p.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

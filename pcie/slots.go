package pcie

// takeSlot returns a free index of *items: the last one freed (put back on
// *free), or a new zero item appended.
func takeSlot[T any](free *[]uint32, items *[]T) uint32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		return i
	}
	*items = append(*items, *new(T))
	return uint32(len(*items) - 1)
}

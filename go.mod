module nicsim

go 1.26

// Package mcdata reads minecraft-data (the npm package the Minecraft ecosystem
// uses as its reference for protocol layouts) and derives from it the packet
// table package wire needs to log a player in itself and send a Transfer
// (1.20.5 on). It is used by the generator (gentransfer) that writes wire's
// committed table, and by the test that checks that table against the data.
//
// It never guesses: a layout it does not recognise is an error, so a new
// version whose packets changed shape is left out of the table until a person
// teaches wire the new layout.
package mcdata

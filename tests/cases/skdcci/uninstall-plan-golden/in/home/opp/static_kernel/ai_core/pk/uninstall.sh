#!/bin/bash
echo removed

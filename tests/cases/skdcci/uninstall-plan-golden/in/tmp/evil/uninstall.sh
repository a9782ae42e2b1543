#!/bin/bash
touch PWNED

// A slider's value in its tooltip to 6 significant digits: the browser adds the steps in
// binary floating point (0.05 + 0.01 = 0.060000000000000005), which a person should not read.
window.dccFunctions = window.dccFunctions || {};
window.dccFunctions.significant = function (value) {
    return typeof value === "number" ? String(Number(value.toPrecision(6))) : value;
};

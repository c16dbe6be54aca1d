#pragma once
// \brief Error values with a message a person can act on (no exceptions across the API).
#include <string>
#include <utility>

namespace halftone {

/// \brief Result of an operation: ok, cancelled, or an error with a human-readable message.
class Status {
public:
    enum class Code { Ok, Error, Cancelled, Unavailable };

    Status() = default;
    static Status ok() { return {}; }
    static Status error(std::string message) { return Status(Code::Error, std::move(message)); }
    static Status cancelled() { return Status(Code::Cancelled, "cancelled"); }
    /// \brief A device or feature is not usable here (the caller may fall back).
    static Status unavailable(std::string message) { return Status(Code::Unavailable, std::move(message)); }

    bool isOk() const { return code_ == Code::Ok; }
    bool isCancelled() const { return code_ == Code::Cancelled; }
    bool isUnavailable() const { return code_ == Code::Unavailable; }
    explicit operator bool() const { return isOk(); }
    Code code() const { return code_; }
    const std::string& message() const { return message_; }

    /// \brief Prefixes the message with context, e.g. the file name.
    Status withContext(const std::string& context) const {
        if (isOk()) return *this;
        return Status(code_, context + ": " + message_);
    }

private:
    Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
    Code code_ = Code::Ok;
    std::string message_;
};

}  // namespace halftone
